package io.tailwatch.core.probe;

/**
 * How a model's name is shown to people. llama.cpp names a model without an alias by the whole path of
 * its file ({@code /srv/models/qwen2.5-7b-q4_k_m.gguf}); labels, windows and screens show the file's
 * name instead. Hub names ({@code mlx-community/Qwen2.5-7B-4bit}) and tags ({@code llama3:8b}) stay as
 * they are. The full name stays in the metric attributes and the status JSON.
 */
public final class ModelNames {
    private ModelNames() {
    }

    /** True for a name that is a file path: absolute, home- or dot-relative, a Windows drive, or a .gguf/.bin file. */
    public static boolean isPath(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        String lower = name.toLowerCase(java.util.Locale.ROOT);
        return name.startsWith("/") || name.startsWith("~/") || name.startsWith("./") || name.startsWith("../")
                || name.matches("^[A-Za-z]:[\\\\/].*") || lower.endsWith(".gguf") || lower.endsWith(".bin");
    }

    /** The file name of a path-like model name; any other name unchanged (null stays null). */
    public static String display(String name) {
        if (!isPath(name)) {
            return name;
        }
        int cut = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        String file = name.substring(cut + 1);
        return file.isEmpty() ? name : file;
    }
}
