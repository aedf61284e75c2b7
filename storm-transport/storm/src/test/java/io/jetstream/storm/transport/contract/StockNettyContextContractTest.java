package io.jetstream.storm.transport.contract;

/**
 * The contract against Storm 2.8.3's own Netty context, which every case must pass: this is what
 * shows the suite asks only what a worker gets from the stock transport today.
 */
class StockNettyContextContractTest extends StormTransportContract {
    @Override
    protected String contextClassName() {
        return "org.apache.storm.messaging.netty.Context";
    }
}
