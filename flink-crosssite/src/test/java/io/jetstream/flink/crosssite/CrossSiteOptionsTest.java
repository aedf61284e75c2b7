package io.jetstream.flink.crosssite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.InvalidConfigurationException;
import java.util.List;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.junit.jupiter.api.Test;

/** The builders validate every property when they build, naming the key. */
class CrossSiteOptionsTest {
    private static CrossSiteSink.Builder<Long> sink() {
        return CrossSiteSink.<Long>builder().setLanding("127.0.0.1:7500").setStreamName("orders")
                .setSerializationSchema(new LongSchema());
    }

    private static CrossSiteSource.Builder<Long> source() {
        return CrossSiteSource.<Long>builder().setLanding("127.0.0.1:7500").setStreamName("orders")
                .setDeserializationSchema(new LongSchema());
    }

    @Test
    void aTypoInAKeyFailsTheBuildNamingTheKey() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> sink().setProperty("jetstream.crosssite.send-timout-ms", "1000").build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.send-timout-ms"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class,
                () -> source().setProperty("jetstream.transport.windw-bytes", "1000").build());
        assertTrue(e.getMessage().contains("jetstream.transport.windw-bytes"), e.getMessage());
    }

    @Test
    void aBadValueFailsTheBuildNamingTheKey() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> source().setProperty("jetstream.crosssite.reader-queue-records", "0").build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.reader-queue-records"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class, () -> sink().setLanding("landing-without-port").build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.landing"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class, () -> sink().setRelays(List.of("relay:x")).build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.relays"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class, () -> sink().setStreamName("a/b").build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.stream-name"), e.getMessage());
    }

    @Test
    void theLandingAndTheStreamNameAreRequired() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> CrossSiteSink.<Long>builder().setStreamName("orders").setSerializationSchema(new LongSchema()).build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.landing"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class,
                () -> CrossSiteSource.<Long>builder().setLanding("h:1").setDeserializationSchema(new LongSchema()).build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.stream-name"), e.getMessage());
    }

    @Test
    void bestEffortAndNoGuaranteeAreRefused() {
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> sink().setProperty("jetstream.transport.reliability", "best-effort").build());
        assertTrue(e.getMessage().contains("jetstream.transport.reliability") && e.getMessage().contains("acknowledged"),
                e.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> sink().setDeliveryGuarantee(DeliveryGuarantee.NONE).build());
        assertTrue(none.getMessage().contains("NONE"), none.getMessage());
    }

    @Test
    void defaultsAreAcknowledgedStreamsOnOneIoThread() {
        CrossSiteSettings s = CrossSiteSettings.validate(java.util.Map.of(
                "jetstream.crosssite.landing", "127.0.0.1:7500", "jetstream.crosssite.stream-name", "orders"));
        assertEquals(io.jetstream.core.api.TransportOptions.Reliability.ACKNOWLEDGED, s.transport().reliability());
        assertEquals(1, s.transport().ioThreads());
        assertEquals(1_000_000_000L, s.transport().closeTimeoutNanos());
        assertEquals("orders/3", s.landedStream(3));
        assertEquals("site 127.0.0.1:7500", s.where());
        assertEquals(DeliveryGuarantee.AT_LEAST_ONCE, sink().build().deliveryGuarantee());
    }

    @Test
    void aSinkToSeveralSitesNamesEachLandingOnceAndHoldsASlowSite() {
        CrossSiteSettings s = CrossSiteSettings.validate(java.util.Map.of(
                "jetstream.crosssite.landings", "site-b=127.0.0.1:7500, site-c=127.0.0.1:7501",
                "jetstream.crosssite.stream-name", "orders"));
        assertTrue(s.toSeveralSites());
        assertEquals(List.of("site-b", "site-c"), List.copyOf(s.sinkLandings().keySet()));
        assertEquals(7501, s.sinkLandings().get("site-c").receiver().getPort());
        assertEquals("sites site-b, site-c (landings site-b=127.0.0.1:7500, site-c=127.0.0.1:7501)", s.where());
        assertEquals(0, s.multicast().holdTimeoutNanos(), "a slow site holds the writer until the send timeout");
        assertEquals(256 << 10, s.multicast().maxLagBytes());
        assertEquals(1 << 20, s.multicast().bufferBytes());

        CrossSiteSink.Builder<Long> twoSites = CrossSiteSink.<Long>builder().setStreamName("orders")
                .setSerializationSchema(new LongSchema()).setLandings(java.util.Map.of("b", "h:1"));
        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> twoSites.setLanding("h:2").build());
        assertTrue(e.getMessage().contains("jetstream.crosssite.landings") && e.getMessage().contains("not both"),
                e.getMessage());
        e = assertThrows(InvalidConfigurationException.class, () -> sink().setLanding("").setProperty(
                "jetstream.crosssite.landings", "b=h:1,b=h:2").build());
        assertTrue(e.getMessage().contains("site b is named twice"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class, () -> sink().setLanding("").setProperty(
                "jetstream.crosssite.landings", "h:1").build());
        assertTrue(e.getMessage().contains("site=host:port"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class, () -> sink().setLanding("").setProperty(
                "jetstream.crosssite.landings", "b=h:1").setProperty("jetstream.multicast.slow-destination", "leave-behind")
                .build());
        assertTrue(e.getMessage().contains("jetstream.multicast.slow-destination"), e.getMessage());
        e = assertThrows(InvalidConfigurationException.class, () -> source().setLanding("").setProperty(
                "jetstream.crosssite.landings", "b=h:1").build());
        assertTrue(e.getMessage().contains("a source reads the landing of its own site"), e.getMessage());
    }
}
