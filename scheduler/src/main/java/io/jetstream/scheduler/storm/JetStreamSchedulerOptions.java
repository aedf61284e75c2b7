package io.jetstream.scheduler.storm;

import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * Options of the Storm scheduler, read by Nimbus under {@code jetstream.scheduler.}. The group has
 * no options until TurboStream's placement lands; declaring it still makes Nimbus refuse any
 * misspelled {@code jetstream.scheduler.*} key at start-up.
 */
public final class JetStreamSchedulerOptions {
    private JetStreamSchedulerOptions() {}

    public static final OptionGroup GROUP = new OptionGroup(
            "Storm scheduler",
            "scheduler.",
            "Read by `io.jetstream.scheduler.storm.JetStreamScheduler` when Nimbus starts "
                    + "(selected with `storm.scheduler`). Placement is Storm's even placement until "
                    + "TurboStream's traffic-aware placement lands.",
            List.of());
}
