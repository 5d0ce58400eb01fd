package io.tailwatch.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads YAML through Jackson's streaming parser into {@link ConfigNode}s that keep their positions.
 * Aliases (and so merge keys, {@code <<: *base}) are refused with their line and key: the streaming
 * parser hands an alias on as its anchor's name, so {@code auth_token: *t} would silently become the
 * text "t". An anchor alone changes nothing and is accepted. One
 * document per file; a second one is an error rather than silently ignored.
 */
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
            if (p.nextToken() != null) {
                JsonLocation loc = p.currentTokenLocation();
                problems.add(documentMarkerBefore(text, loc.getLineNr()), 1, "", "a second YAML document (after ---) is not "
                        + "supported: the config is one document");
            }
            return root;
        } catch (JsonProcessingException e) {
            syntaxProblem(e, problems);
            return null;
        } catch (IOException e) {
            problems.add(0, 0, "", "cannot read YAML: " + e.getMessage());
            return null;
        }
    }

    /** The line of the last "---" before {@code line} (the start of the second document). */
    private static int documentMarkerBefore(String text, int line) {
        String[] lines = text.split("\n", -1);
        for (int i = Math.min(line, lines.length) - 1; i >= 0; i--) {
            if (lines[i].startsWith("---")) {
                return i + 1;
            }
        }
        return line;
    }

    /**
     * SnakeYAML's problem mark points at the offending character (a tab, say) while Jackson's location
     * is where the enclosing context began; report the former, with SnakeYAML's own explanation.
     */
    private static void syntaxProblem(JsonProcessingException e, Problems problems) {
        if (e.getCause() instanceof MarkedYAMLException m && m.getProblemMark() != null) {
            Mark mark = m.getProblemMark();
            String why = m.getProblem() == null ? m.getContext() : m.getProblem();
            why = why.replace("\t(TAB)", "a tab").replace("\t", "a tab");
            problems.add(mark.getLine() + 1, mark.getColumn() + 1, "", "YAML syntax: " + why);
            return;
        }
        JsonLocation loc = e.getLocation();
        String msg = e.getOriginalMessage();
        problems.add(loc == null ? 0 : loc.getLineNr(), loc == null ? 0 : loc.getColumnNr(), "", "YAML syntax: " + msg.split("\n")[0]);
    }

    private static ConfigNode read(JsonParser p, JsonToken t, Problems problems, String path) throws IOException {
        JsonLocation loc = p.currentTokenLocation();
        int line = loc.getLineNr();
        int col = loc.getColumnNr();
        if (p instanceof YAMLParser y) {
            if (y.isCurrentAlias()) {
                problems.add(line, col, path, "YAML aliases (*" + p.getText() + ") are not supported: write the value out");
                return new ConfigNode.Null(line, col);
            }
        }
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
