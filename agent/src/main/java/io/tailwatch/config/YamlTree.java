package io.tailwatch.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads YAML through Jackson's streaming parser into {@link ConfigNode}s that keep their positions. */
public final class YamlTree {
    private static final YAMLFactory FACTORY = new YAMLFactory();

    private YamlTree() {
    }

    /** Parses {@code text}; syntax errors and duplicate keys are added to {@code problems}. Returns null on a syntax error. */
    public static ConfigNode parse(String text, Problems problems) {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return new ConfigNode.MapNode(1, 1, Map.of());
            }
            ConfigNode root = read(p, t, problems, "");
            return root;
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            String msg = e.getOriginalMessage();
            problems.add(loc == null ? 0 : loc.getLineNr(), loc == null ? 0 : loc.getColumnNr(), "", "YAML syntax: " + msg.split("\n")[0]);
            return null;
        } catch (IOException e) {
            problems.add(0, 0, "", "cannot read YAML: " + e.getMessage());
            return null;
        }
    }

    private static ConfigNode read(JsonParser p, JsonToken t, Problems problems, String path) throws IOException {
        JsonLocation loc = p.currentTokenLocation();
        int line = loc.getLineNr();
        int col = loc.getColumnNr();
        switch (t) {
            case START_OBJECT -> {
                Map<String, ConfigNode.Entry> entries = new LinkedHashMap<>();
                JsonToken n;
                while ((n = p.nextToken()) != JsonToken.END_OBJECT) {
                    String key = p.currentName();
                    JsonLocation kl = p.currentTokenLocation();
                    String childPath = path.isEmpty() ? key : path + "." + key;
                    ConfigNode value = read(p, p.nextToken(), problems, childPath);
                    if (entries.containsKey(key)) {
                        problems.add(kl.getLineNr(), kl.getColumnNr(), childPath, "duplicate key");
                    }
                    entries.put(key, new ConfigNode.Entry(kl.getLineNr(), kl.getColumnNr(), value));
                }
                return new ConfigNode.MapNode(line, col, entries);
            }
            case START_ARRAY -> {
                List<ConfigNode> items = new ArrayList<>();
                JsonToken n;
                int i = 0;
                while ((n = p.nextToken()) != JsonToken.END_ARRAY) {
                    items.add(read(p, n, problems, path + "[" + i++ + "]"));
                }
                return new ConfigNode.ListNode(line, col, items);
            }
            case VALUE_NULL -> {
                return new ConfigNode.Null(line, col);
            }
            case VALUE_STRING -> {
                return new ConfigNode.Scalar(line, col, p.getText(), true);
            }
            default -> {
                return new ConfigNode.Scalar(line, col, p.getText(), false);
            }
        }
    }
}
