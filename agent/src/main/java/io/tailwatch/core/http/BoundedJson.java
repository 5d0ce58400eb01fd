package io.tailwatch.core.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a JSON body with Jackson's streaming parser into a tree that keeps only a bounded part of
 * it: at most {@link Limits#maxArrayElements()} elements of any array (the rest are skipped but
 * counted), at most {@link Limits#maxNodes()} values in all, strings cut at
 * {@link Limits#maxStringChars()}. What was left out is reported with its numbers, so a large but
 * legal answer (20,000 served models) costs a few KiB of heap and is named as over a bound rather
 * than failing.
 */
public final class BoundedJson {
    /** The bounds of one tree. */
    public record Limits(int maxArrayElements, int maxNodes, int maxStringChars, int maxDepth) {
        /**
         * Engine inventories: 256 models are more than any host loads (each array keeps that many and counts
         * the rest); the whole tree at most 5,000 values, about 0.5 MiB of heap at worst.
         */
        public static final Limits DEFAULT = new Limits(256, 5_000, 4096, 32);
        /** Discovery's identification reads (up to eight ports at once): a version, a few model ids. */
        public static final Limits SMALL = new Limits(64, 1_000, 1024, 16);
    }

    /**
     * Characters of string values kept in one tree, all strings together; past it strings are kept
     * empty and the tree counts as cut. With {@link Limits#maxNodes()} this bounds the tree's heap.
     */
    public static final int MAX_TOTAL_CHARS = 128 * 1024;

    /**
     * The kept tree (null for an empty body), the total element count of every array that was cut
     * (keyed by its JSON pointer, e.g. {@code /data}), and whether the document was read to its end.
     */
    public record Result(JsonNode root, Map<String, Long> cutArrays, boolean nodesCut, boolean complete) {
        /** Elements of the array at {@code pointer}: its real total when it was cut, else its kept size. */
        public long total(String pointer) {
            Long n = cutArrays.get(pointer);
            if (n != null) {
                return n;
            }
            JsonNode a = root == null ? null : root.at(pointer);
            return a != null && a.isArray() ? a.size() : 0;
        }

        /** Says what was left out, with the numbers, or null when nothing was. */
        public String describeCuts(Limits limits) {
            List<String> parts = new ArrayList<>();
            cutArrays.forEach((p, n) -> parts.add((p.isEmpty() ? "the top-level array" : p) + " has " + n
                    + " entries, over the bound of " + limits.maxArrayElements() + "; the first "
                    + limits.maxArrayElements() + " kept"));
            if (nodesCut) {
                parts.add("more than " + limits.maxNodes() + " values or " + MAX_TOTAL_CHARS
                        + " characters of text; the rest skipped");
            }
            return parts.isEmpty() ? null : String.join("; ", parts);
        }
    }

    /**
     * Longest single string the parser takes (it holds one whole string while reading it: 512 KiB of
     * chars at most); a longer one ends the read as over a bound. A llama.cpp chat template is a few KiB.
     */
    public static final int MAX_STRING_CHARS = 256 * 1024;

    /** Jackson's own guards, set below its defaults: nesting, number and string sizes. */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(64).maxNumberLength(100).maxStringLength(MAX_STRING_CHARS).maxNameLength(4096)
                    .build())
            .build();

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final int MAX_CUTS_REMEMBERED = 8;

    private final Limits limits;
    private final Map<String, Long> cuts = new LinkedHashMap<>();
    private int nodes;
    private long chars;
    private boolean nodesCut;

    private BoundedJson(Limits limits) {
        this.limits = limits;
    }

    /**
     * Parses {@code in}. An I/O failure part-way (a body over its byte bound, a cut connection) is
     * thrown as {@link Partial}, which carries the tree read up to there.
     */
    public static Result read(InputStream in, Limits limits) throws IOException {
        BoundedJson b = new BoundedJson(limits);
        ObjectNode holder = NODES.objectNode();
        try (JsonParser p = FACTORY.createParser(in)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return new Result(null, Map.of(), false, true);
            }
            b.value(p, t, holder, "root", "", 0);
            if (p.nextToken() != null) {
                throw new com.fasterxml.jackson.core.JsonParseException(p, "more than one JSON value");
            }
            return new Result(holder.get("root"), Map.copyOf(b.cuts), b.nodesCut, true);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw e;
        } catch (IOException e) {
            throw new Partial(e, new Result(holder.get("root"), Map.copyOf(b.cuts), b.nodesCut, false));
        }
    }

    /** Reading stopped on an I/O failure; {@link #partial()} holds what was read before. */
    public static final class Partial extends IOException {
        private final transient Result partial;

        Partial(IOException cause, Result partial) {
            super(cause.getMessage(), cause);
            this.partial = partial;
        }

        public Result partial() {
            return partial;
        }
    }

    /** Reads the value starting at {@code t} and puts it under {@code name} in {@code parent} (or appends). */
    private void value(JsonParser p, JsonToken t, JsonNode parent, String name, String pointer, int depth)
            throws IOException {
        if (depth > limits.maxDepth()) {
            throw new com.fasterxml.jackson.core.JsonParseException(p, "nested deeper than " + limits.maxDepth());
        }
        if (nodes >= limits.maxNodes()) {
            nodesCut = true;
            p.skipChildren();
            return;
        }
        nodes++;
        switch (t) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                attach(parent, name, o);
                JsonToken k;
                while ((k = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    chars += field.length();
                    value(p, p.nextToken(), o, field, pointer + "/" + escape(field), depth + 1);
                }
            }
            case START_ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                attach(parent, name, a);
                long n = 0;
                JsonToken e;
                while ((e = p.nextToken()) != JsonToken.END_ARRAY && e != null) {
                    if (n < limits.maxArrayElements()) {
                        value(p, e, a, null, pointer + "/" + n, depth + 1);
                    } else {
                        p.skipChildren();
                    }
                    n++;
                }
                if (n > limits.maxArrayElements() && (cuts.size() < MAX_CUTS_REMEMBERED || cuts.containsKey(pointer))) {
                    cuts.put(pointer, n);
                }
            }
            case VALUE_STRING -> {
                String s = p.getText();
                int keep = (int) Math.min(Math.min(s.length(), limits.maxStringChars()), Math.max(0, MAX_TOTAL_CHARS - chars));
                if (keep < s.length() && keep < limits.maxStringChars()) {
                    nodesCut = true;
                }
                chars += keep;
                attach(parent, name, NODES.textNode(keep == s.length() ? s : s.substring(0, keep)));
            }
            case VALUE_NUMBER_INT -> attach(parent, name, p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? NODES.numberNode(p.getBigIntegerValue()) : NODES.numberNode(p.getLongValue()));
            case VALUE_NUMBER_FLOAT -> attach(parent, name, NODES.numberNode(p.getDoubleValue()));
            case VALUE_TRUE -> attach(parent, name, NODES.booleanNode(true));
            case VALUE_FALSE -> attach(parent, name, NODES.booleanNode(false));
            case VALUE_NULL -> attach(parent, name, NODES.nullNode());
            default -> throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected token " + t);
        }
    }

    private static void attach(JsonNode parent, String name, JsonNode child) {
        if (parent instanceof ArrayNode a) {
            a.add(child);
        } else {
            ((ObjectNode) parent).set(name, child);
        }
    }

    private static String escape(String field) {
        return field.replace("~", "~0").replace("/", "~1");
    }
}
