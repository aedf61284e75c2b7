package io.jetstream.core.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures what the core logs (through SLF4J to Log4j 2, the tests' logging backend) while it is
 * open: an appender on the {@code io.jetstream} logger of the test configuration. For tests that
 * assert what was logged, and how often.
 *
 * <p>Threading contract: events are recorded from any thread; {@link #events} is a snapshot.
 */
public final class LogCapture implements AutoCloseable {
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final String LOGGER = "io.jetstream";

    private final List<LogEvent> events = new CopyOnWriteArrayList<>();
    private final LoggerContext context;
    private final AbstractAppender appender;

    private LogCapture() {
        context = (LoggerContext) LogManager.getContext(false);
        appender = new AbstractAppender("capture-" + IDS.incrementAndGet(), null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                events.add(event.toImmutable());
            }
        };
        appender.start();
        Configuration config = context.getConfiguration();
        LoggerConfig logger = config.getLoggerConfig(LOGGER);
        if (!logger.getName().equals(LOGGER)) {
            throw new IllegalStateException("the test logging configuration has no logger " + LOGGER);
        }
        logger.addAppender(appender, Level.ALL, null);
        context.updateLoggers();
    }

    /** Starts capturing. */
    public static LogCapture start() {
        return new LogCapture();
    }

    /** What was logged so far. */
    public List<LogEvent> events() {
        return List.copyOf(events);
    }

    /** What was logged at {@code level} whose formatted message matches {@code message}. */
    public List<LogEvent> at(Level level, Predicate<String> message) {
        return events.stream()
                .filter(e -> e.getLevel() == level && message.test(e.getMessage().getFormattedMessage()))
                .toList();
    }

    /** For failure messages: every event, one a line. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (LogEvent e : events) {
            sb.append(e.getLevel()).append(' ').append(e.getLoggerName()).append(": ").append(e.getMessage().getFormattedMessage())
                    .append('\n');
        }
        return sb.toString();
    }

    @Override
    public void close() {
        context.getConfiguration().getLoggerConfig(LOGGER).removeAppender(appender.getName());
        context.updateLoggers();
        appender.stop();
    }
}
