/**
 * Text bound for a terminal or a log line: {@link io.tailwatch.core.text.SafeText} escapes what a terminal
 * would act on (the one rule for logs and command output), {@link io.tailwatch.core.text.Columns}
 * measures in terminal columns, {@link io.tailwatch.core.text.TextFit} wraps and cuts to a width.
 * A leaf of the core: it uses no other package of the project (ArchitectureTest).
 */
package io.tailwatch.core.text;
