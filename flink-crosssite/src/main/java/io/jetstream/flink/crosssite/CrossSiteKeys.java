package io.jetstream.flink.crosssite;

import io.jetstream.core.config.ConfigScope;

/** The full keys of the options the builders set by name. Constants only. */
final class CrossSiteKeys {
    private CrossSiteKeys() {}

    static final String LANDING = ConfigScope.FLINK_CONNECTOR.keyOf(CrossSiteOptions.LANDING);
    static final String LANDINGS = ConfigScope.FLINK_CONNECTOR.keyOf(CrossSiteOptions.LANDINGS);
    static final String RELAYS = ConfigScope.FLINK_CONNECTOR.keyOf(CrossSiteOptions.RELAYS);
    static final String STREAM_NAME = ConfigScope.FLINK_CONNECTOR.keyOf(CrossSiteOptions.STREAM_NAME);
    static final String SITE = ConfigScope.FLINK_CONNECTOR.keyOf(CrossSiteOptions.SITE);
}
