/**
 * The connection setup benchmark of {@code bench/cm-connect}: jrdma's connection manager (REQ, REP,
 * RTU over QP1 of soft RoCE v2 devices on loopback) beside a TCP connect between the same two
 * processes ({@code CmConnect}). Plain {@code main} programs.
 */
package org.jrdma.bench.cm;
