package io.tailwatch.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Reads a JSON document into Jackson's tree with the streaming parser and the node factory alone: the
 * same tree {@code ObjectMapper.readTree(byte[])} makes with the mapper's defaults (int, long and big
 * integer nodes by size, double nodes for fractions, the last of duplicate keys, a missing node for an
 * empty document, anything after the first value not read), without starting the mapper's data binding
 * (about 600 classes, most of a runbook command's JSON cost in a fresh JVM; docs/performance.md,
 * "Runbook command start-up"). Parse errors are the parser's own, as with the mapper.
 */
public final class JsonTree {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonTree() {
    }

    public static JsonNode read(byte[] body) throws IOException {
        try (JsonParser p = FACTORY.createParser(body)) {
            return read(p);
        }
    }

    /** The same from a stream, read as it comes (the caller bounds the stream). */
    public static JsonNode read(java.io.InputStream body) throws IOException {
        try (JsonParser p = FACTORY.createParser(body)) {
            return read(p);
        }
    }

    private static JsonNode read(JsonParser p) throws IOException {
        JsonToken t = p.nextToken();
        if (t == null) {
            return MissingNode.getInstance();
        }
        JsonNode first = node(p, t);
        if (!(first instanceof ContainerNode<?>)) {
            return first;
        }
        // Open containers, innermost last; a field's name is read before its value.
        Deque<ContainerNode<?>> open = new ArrayDeque<>();
        open.push((ContainerNode<?>) first);
        while (!open.isEmpty()) {
            ContainerNode<?> top = open.peek();
            t = p.nextToken();
            if (t == null) {
                throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected end of the document");
            }
            if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                open.pop();
                continue;
            }
            String name = null;
            if (top instanceof ObjectNode) {
                name = p.currentName();
                t = p.nextToken();
            }
            JsonNode child = node(p, t);
            if (top instanceof ObjectNode o) {
                o.set(name, child);
            } else {
                ((ArrayNode) top).add(child);
            }
            if (child instanceof ContainerNode<?> c) {
                open.push(c);
            }
        }
        return first;
    }

    /** The node for the value at {@code t}: an empty container for a start token. */
    private static JsonNode node(JsonParser p, JsonToken t) throws IOException {
        return switch (t) {
            case START_OBJECT -> NODES.objectNode();
            case START_ARRAY -> NODES.arrayNode();
            case VALUE_STRING -> NODES.textNode(p.getText());
            case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
                case INT -> NODES.numberNode(p.getIntValue());
                case LONG -> NODES.numberNode(p.getLongValue());
                default -> NODES.numberNode(p.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> switch (p.getNumberType()) {
                case BIG_DECIMAL -> NODES.numberNode(p.getDecimalValue());
                case FLOAT -> NODES.numberNode(p.getFloatValue());
                default -> NODES.numberNode(p.getDoubleValue());
            };
            case VALUE_TRUE -> NODES.booleanNode(true);
            case VALUE_FALSE -> NODES.booleanNode(false);
            case VALUE_NULL -> NODES.nullNode();
            default -> throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected token " + t);
        };
    }
}
