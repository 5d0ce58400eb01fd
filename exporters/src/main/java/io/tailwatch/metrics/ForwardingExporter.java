package io.tailwatch.metrics;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.export.MetricExporter;

/** An exporter that adds to what another one does: flush, shutdown and temporality are the delegate's. */
abstract class ForwardingExporter implements MetricExporter {
    protected final MetricExporter delegate;

    ForwardingExporter(MetricExporter delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletableResultCode flush() {
        return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
        return delegate.shutdown();
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
        return delegate.getAggregationTemporality(instrumentType);
    }
}
