package io.jetstream.storm.transport.contract;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * Collects the WARN and ERROR lines every logger of this JVM writes while it is open (through
 * log4j2, which the test class path binds slf4j to), each as its formatted message followed by its
 * exception's messages.
 *
 * <p>Thread-safe: loggers append from any thread.
 */
final class WarningCapture implements AutoCloseable {
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final List<String> lines = new ArrayList<>();
    private final Appender appender = new Appender();

    WarningCapture() {
        appender.start();
        context.getConfiguration().getRootLogger().addAppender(appender, Level.WARN, null);
        context.updateLoggers();
    }

    /** Captured lines that contain {@code text}. */
    synchronized List<String> containing(String text) {
        return lines.stream().filter(l -> l.contains(text)).toList();
    }

    synchronized int size() {
        return lines.size();
    }

    private synchronized void add(String line) {
        lines.add(line);
    }

    @Override
    public void close() {
        context.getConfiguration().getRootLogger().removeAppender(appender.getName());
        context.updateLoggers();
        appender.stop();
    }

    private final class Appender extends AbstractAppender {
        Appender() {
            super("contract-warnings-" + System.identityHashCode(WarningCapture.this), null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            StringBuilder line = new StringBuilder(event.getLoggerName()).append(": ").append(event.getMessage().getFormattedMessage());
            for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
                line.append(" / ").append(t);
            }
            add(line.toString());
        }
    }
}
