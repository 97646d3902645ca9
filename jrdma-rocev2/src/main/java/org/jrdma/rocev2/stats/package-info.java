/** Counters of a software RoCE v2 device, named as Linux rxe's hw_counters. */
package org.jrdma.rocev2.stats;
