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

    /** GET the path as JSON within {@code deadline}; anything but an object is malformed. */
    protected com.fasterxml.jackson.databind.JsonNode getObject(java.time.Duration deadline) throws SignalFailure {
        com.fasterxml.jackson.databind.JsonNode n = endpoint.getJson(path, deadline);
        if (!n.isObject()) {
            throw new SignalFailure(SignalFailure.MALFORMED, path, "expected a JSON object");
        }
        return n;
    }
}
