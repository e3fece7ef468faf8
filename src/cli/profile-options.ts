// The app's agent profile the CLI runs a stored session with (`--profiles MODULE --profile NAME`,
// or `--emulator` for the built-in `emulator` profile): what `keelson replay` replays with and
// what `keelson approve|deny|respond` continues a paused turn with — the app's provider, model,
// system prompt, tools and plugins, so a held subagent call runs the app's real child.
import type { AgentOptions, AgentProfile } from "../loop/index.js";
import { CliError } from "./errors.js";

export interface ProfileFlags {
  readonly profiles?: string;
  readonly profile?: string;
  readonly emulator?: boolean;
}

/** The agent options of the profile `flags` name, for session `sessionId`; a `CliError` when it is not there. */
export async function profileOptions(
  sessionId: string,
  flags: ProfileFlags,
): Promise<Omit<AgentOptions, "store" | "sessionId">> {
  const { emulatorProfile, loadProfiles } = await import("./worker-command.js");
  const name = flags.profile ?? (flags.emulator === true ? "emulator" : undefined);
  if (name === undefined) throw new CliError("--profiles needs --profile NAME: the profile the session ran with");
  const profiles: Record<string, AgentProfile> = {
    ...(flags.profiles === undefined ? {} : await loadProfiles(flags.profiles)),
    ...(flags.emulator === true ? { emulator: await emulatorProfile(0) } : {}),
  };
  const profile = profiles[name];
  if (profile === undefined)
    throw new CliError(
      `no profile ${JSON.stringify(name)}: ${flags.profiles ?? "--emulator"} has ${Object.keys(profiles).join(", ") || "none"}`,
    );
  const { profileAgentOptions } = await import("../loop/index.js");
  return profileAgentOptions(profile, { profile: name, sessionId });
}
