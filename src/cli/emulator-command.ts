// `keelson emulator [--port N] [--style openai|deepseek]`: serves the provider emulator
// (rule-based model) on 127.0.0.1 until SIGINT or SIGTERM, then closes it cleanly.
import { type Command, Option } from "commander";
import { CliError } from "./errors.js";
import { commandSummary } from "./commands.js";
import { cliInvocation } from "./invocation.js";

export function registerEmulator(program: Command): void {
  program
    .command("emulator")
    .description(commandSummary("emulator"))
    .option("--port <n>", "port on 127.0.0.1 (default: a free one)")
    .addOption(
      new Option("--style <style>", "usage style of the OpenAI endpoint")
        .choices(["anthropic", "openai", "deepseek"])
        .default("anthropic"),
    )
    .action(async (flags: { port?: string; style: "anthropic" | "openai" | "deepseek" }) => {
      const port = flags.port === undefined ? 0 : Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError(`invalid --port ${JSON.stringify(flags.port)}: expected 0..65535`);
      const { startEmulator } = await import("../emulator/index.js");
      const emulator = await startEmulator({
        model: "rule-based",
        port,
        ...(flags.style === "anthropic" ? {} : { style: flags.style }),
      });
      const lines = [
        `keelson emulator listening on ${emulator.url} (rule-based model, ${flags.style} style)`,
        `  anthropic base URL: ${emulator.anthropicBaseURL}`,
        `  openai base URL:    ${emulator.openaiBaseURL}`,
        `  gemini base URL:    ${emulator.geminiBaseURL}`,
        "point Keelson at it:",
        `  ANTHROPIC_BASE_URL=${emulator.anthropicBaseURL} ANTHROPIC_API_KEY=emulator ${cliInvocation()} run --model anthropic:claude-sonnet-4-5 "hello"`,
        `  OPENAI_BASE_URL=${emulator.openaiBaseURL} OPENAI_API_KEY=emulator ${cliInvocation()} run --model ${flags.style === "deepseek" ? "openai:deepseek-chat" : "openai:gpt-5.1"} "hello"`,
        `  GOOGLE_GEMINI_BASE_URL=${emulator.geminiBaseURL} GEMINI_API_KEY=emulator ${cliInvocation()} run --model gemini:gemini-2.5-flash "hello"`,
        "Ctrl-C stops it.",
      ];
      // The signal handlers go in before the URLs are printed: whoever reads them may stop us at once.
      const stopped = new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      process.stdout.write(`${lines.join("\n")}\n`);
      await stopped;
      await emulator.close();
      process.stdout.write(`emulator stopped (${emulator.requests.length} requests served)\n`);
    });
}
