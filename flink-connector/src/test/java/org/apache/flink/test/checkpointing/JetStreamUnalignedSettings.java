package org.apache.flink.test.checkpointing;

import io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory;
import java.io.File;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;

/**
 * The settings of Flink's unaligned-checkpoint suites with JetStream's shuffle service factory in
 * place of Flink's test factory ({@code SharedPoolNettyShuffleServiceFactory}); nothing else changed.
 */
final class JetStreamUnalignedSettings extends UnalignedCheckpointTestBase.UnalignedSettings {
    JetStreamUnalignedSettings(UnalignedCheckpointTestBase.DagCreator topology) {
        super(topology);
    }

    @Override
    public Configuration getConfiguration(File checkpointDir) {
        Configuration conf = super.getConfiguration(checkpointDir);
        conf.set(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS, JetStreamShuffleServiceFactory.class.getName());
        return conf;
    }
}
