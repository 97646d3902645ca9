/** RoCE v2 wire. */
package org.jrdma.rocev2.wire;
