package io.jetstream.benchmarks.ipc;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round trip between two JVMs on this host: the shared-memory ring (both ends busy-polling) against
 * Netty TCP loopback (epoll, TCP_NODELAY), same payloads, same echo peer process. Compare the
 * {@code transport=ring} and {@code transport=netty} rows of one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class IpcRoundTripBenchmark {
    @Param({"ring", "netty"})
    public String transport;

    @Param({"64", "1024", "16384"})
    public int size;

    private IpcEndpoints endpoints;

    @Setup(Level.Trial)
    public void start() throws Exception {
        endpoints = transport.equals("ring") ? IpcEndpoints.ring(size, true) : IpcEndpoints.netty(size);
    }

    @Benchmark
    public void roundTrip() {
        endpoints.roundTrip();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        endpoints.close();
    }
}
