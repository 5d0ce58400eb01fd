package io.tailwatch.core.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The model an mlx_lm.server serves, from its command line as mlx-lm's server.py parses it: {@code --model}
 * (argparse: {@code --model=V}, a unique prefix, the last one wins), a repository id as given, a directory by its
 * last segment; nothing from another program's command line, without the flag, or from a value the byte bound
 * may have cut.
 */
class MlxLmServerArgsTest {
    private static final String PY = "/opt/homebrew/opt/python@3.12/bin/python3.12";
    private static final String SCRIPT = "/opt/homebrew/bin/mlx_lm.server";

    private static String served(String... args) {
        return MlxLmServerArgs.servedModel(List.of(args));
    }

    @Test
    void theServedModelIsTheModelFlagsRepositoryIdOrDirectoryName() {
        assertThat(served(PY, SCRIPT, "--model", "mlx-community/Qwen3-0.6B-4bit", "--port", "8080"))
                .isEqualTo("mlx-community/Qwen3-0.6B-4bit");
        assertThat(served(PY, SCRIPT, "--model", "/Users/me/models/Qwen3-0.6B-4bit/")).isEqualTo("Qwen3-0.6B-4bit");
        assertThat(served(PY, SCRIPT, "--model=~/models/Llama-3.2-1B-4bit")).isEqualTo("Llama-3.2-1B-4bit");
        assertThat(served(PY, SCRIPT, "--model", "models/local/Gemma-3-1b")).as("a relative path").isEqualTo("Gemma-3-1b");
        assertThat(served(PY, "-m", "mlx_lm.server", "--mod", "mlx-community/Phi-4-4bit")).isEqualTo("mlx-community/Phi-4-4bit");
        assertThat(served(PY, "-m", "mlx_lm", "server", "--model", "a/b", "--model", "c/d")).as("the last one wins")
                .isEqualTo("c/d");
        assertThat(served(PY, SCRIPT, "--adapter-path", "adapters/x", "--model", "m/q", "--draft-model", "m/s"))
                .isEqualTo("m/q");
    }

    @Test
    void whatTheCommandLineDoesNotTellIsUnknown() {
        assertThat(served(PY, SCRIPT, "--port", "8080")).as("no --model: it serves whatever a request names").isNull();
        assertThat(served(PY, "-m", "vllm_mlx.server", "--model", "m/q")).as("another server").isNull();
        assertThat(served("/usr/bin/litellm", "--model", "ollama/llama3")).isNull();
        assertThat(served(PY, SCRIPT, "--m", "m/q")).as("ambiguous to argparse").isNull();
        assertThat(served(PY, SCRIPT, "--model")).as("value cut off").isNull();
        assertThat(MlxLmServerArgs.servedModel(null)).isNull();
        assertThat(MlxLmServerArgs.servedModel(List.of())).isNull();
        // Read up to the byte bound: the last argument may end early, so a --model value there is unknown.
        List<String> cut = new ArrayList<>(List.of(PY, SCRIPT, "--chat-template", "x".repeat(3000), "--model",
                "/Users/me/models/" + "Q".repeat(ProcessTable.MAX_ARG_BYTES)));
        assertThat(MlxLmServerArgs.servedModel(cut)).isNull();
        List<String> whole = new ArrayList<>(List.of(PY, SCRIPT, "--model", "/Users/me/models/Qwen3-0.6B-4bit"));
        whole.addAll(Collections.nCopies(4, "--trust-remote-code"));
        assertThat(MlxLmServerArgs.servedModel(whole)).isEqualTo("Qwen3-0.6B-4bit");
    }
}
