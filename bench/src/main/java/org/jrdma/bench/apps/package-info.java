/**
 * {@code bench/apps} (issue 15): the examples (KV, RPC, file transfer) and raw verbs over soft RoCE
 * and soft iWARP against TCP in one table ({@link org.jrdma.bench.apps.AppsTable}), from the
 * existing benches' in-process entry points.
 */
package org.jrdma.bench.apps;
