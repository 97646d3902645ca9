/** The shared core of the software providers. */
package org.jrdma.soft;
