package rtbox.broker.internal;

import java.io.IOException;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

import rtbox.broker.LocalBroker;
import rtbox.broker.LocalBrokers;

/** {@link LocalBrokers}: brokers as PID {@code rtbox.broker} configures them (its metatype is BrokerCommand's). */
@Component(service = LocalBrokers.class, configurationPid = "rtbox.broker",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
public class ConfiguredBrokers implements LocalBrokers {
    private BundleContext context;
    private BrokerConfig config;

    @Activate
    void activate(BundleContext context, BrokerConfig config) {
        this.context = context;
        this.config = config;
    }

    @Override
    public LocalBroker start(int port) throws IOException {
        return LocalBroker.start(port, config.maxMessageBytes(), BrokerCommand.passwordFile(context, config));
    }
}
