// The host's profiles by name, checked once at `createAgentHost`, and the rule that picks the
// profile a turn runs under: the prompt's own choice, else the one its session is open with, else
// `default` (the `profile` option), else the only one.
import { type AgentProfile, profileProblem } from "../loop/index.js";
import { HostError } from "./types.js";

export const DEFAULT_PROFILE = "default";

export class HostProfiles {
  readonly #byName: ReadonlyMap<string, AgentProfile>;
  /** The profile a prompt gets when nothing else names one (undefined: several, none `default`). */
  readonly fallback: string | undefined;

  constructor(profile: AgentProfile | undefined, profiles: Readonly<Record<string, AgentProfile>> | undefined) {
    if (profiles !== undefined && (typeof profiles !== "object" || profiles === null))
      throw new HostError("invalid-options", "`profiles` must be an object of profiles by name");
    const byName = new Map(Object.entries(profiles ?? {}));
    if (profile !== undefined) {
      if (byName.has(DEFAULT_PROFILE))
        throw new HostError(
          "invalid-options",
          `both \`profile\` and \`profiles.${DEFAULT_PROFILE}\` are given; \`profile\` is registered as "${DEFAULT_PROFILE}"`,
        );
      byName.set(DEFAULT_PROFILE, profile);
    }
    if (byName.size === 0) throw new HostError("invalid-options", "an agent host needs `profile` or `profiles`");
    for (const [name, candidate] of byName) {
      const problem = profileProblem(name, candidate);
      if (problem !== undefined) throw new HostError("invalid-profile", `profile ${JSON.stringify(name)} ${problem}`);
    }
    this.#byName = byName;
    this.fallback = byName.has(DEFAULT_PROFILE)
      ? DEFAULT_PROFILE
      : byName.size === 1
        ? [...byName.keys()][0]
        : undefined;
  }

  /** Refuses a requested name the host does not have (at the door, before anything is queued). */
  check(requested: unknown): void {
    if (requested === undefined) return;
    if (typeof requested !== "string" || !this.#byName.has(requested))
      throw new HostError(
        "unknown-profile",
        `no profile ${JSON.stringify(requested)} in this host (it has ${[...this.#byName.keys()].map((n) => JSON.stringify(n)).join(", ")})`,
      );
  }

  /** The profile name a turn runs under (see the module comment). */
  choose(requested: string | undefined, openWith: string | undefined, sessionId: string): string {
    const name = requested ?? openWith ?? this.fallback;
    if (name === undefined)
      throw new HostError(
        "unknown-profile",
        `the prompt for session ${sessionId} names no profile, and this host has several and no "${DEFAULT_PROFILE}"`,
      );
    this.check(name);
    return name;
  }

  get(name: string): AgentProfile {
    return this.#byName.get(name)!;
  }
}
