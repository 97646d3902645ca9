/** JMH benchmarks. */
package org.jrdma.bench;
