package io.tailwatch.daemon.signals;

/** A source that reads one path of the engine's endpoint; its kind and path are fixed when it is made. */
abstract class EndpointSignalSource implements EngineSignalSource {
    protected final EngineEndpoint endpoint;
    protected final String path;
    private final String kind;

    EndpointSignalSource(EngineEndpoint endpoint, String kind, String path) {
        this.endpoint = endpoint;
        this.kind = kind;
        this.path = path;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public String describe() {
        return "GET " + path;
    }
}
