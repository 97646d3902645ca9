/**
 * Provider extensions of a {@link org.jrdma.verbs.Context}, found with
 * {@link org.jrdma.verbs.Context#extension(Class)}: counters, resource counts, and what a provider
 * may add. A provider that lacks one returns empty.
 */
package org.jrdma.verbs.ext;
