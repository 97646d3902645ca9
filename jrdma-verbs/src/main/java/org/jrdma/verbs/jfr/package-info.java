/**
 * JDK Flight Recorder events of jrdma: what happens on the rare paths of a device (QP state
 * changes, retransmissions, RNR NAKs, completions with an error status, iWARP Terminates, CM
 * events), recorded as {@code jdk.jfr.Event}s of category {@code jrdma} when a recording is on.
 *
 * <p>Applications and tools see them by name ({@code org.jrdma.QpStateChange}, ...; the constants of
 * {@link org.jrdma.verbs.jfr.JrdmaEvents}) in a recording ({@code -XX:StartFlightRecording},
 * {@code jdk.jfr.Recording}, {@code jdk.jfr.consumer.RecordingStream}) and print them with
 * {@code jfr print --events org.jrdma.Retransmit rec.jfr}. Providers emit them through the static
 * methods of {@link org.jrdma.verbs.jfr.JrdmaEvents}, which create nothing while Flight Recorder is
 * not initialized or the event is disabled. The device's counters, which count the same things
 * without a recording, are {@link org.jrdma.verbs.ext.HardwareCounters}.
 */
package org.jrdma.verbs.jfr;
