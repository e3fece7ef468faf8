// Open-or-create by id: resume the stored session (a writable load: crash-repaired, locked), or —
// when the store has no such session — create it with that id and publish it before any turn, so
// a refusal (another writer created it meanwhile, a store that fails) surfaces here, not mid-turn.
// Answers and cancels open only: they never create a session. A prompt dropped while the store was asked (its caller cancelled) creates nothing; one dropped
// while the creation is in flight leaves the new session empty (the store has no delete).
import { isKeelsonError } from "../errors/index.js";
import { type Agent, type AgentProfile, createAgent, profileAgentOptions, resumeAgent } from "../loop/index.js";
import type { SessionStore, StoreErrorCode } from "../store/index.js";
import { HostError } from "./types.js";

export async function openAgent(
  store: SessionStore,
  sessionId: string,
  name: string,
  profile: AgentProfile,
  /** Whether the prompt that opens it still wants it: checked before a new session is created. */
  wanted: () => boolean = () => true,
  /** False for an answer or a cancel: a session the store does not have is `not-found`, never created. */
  creates = true,
): Promise<Agent> {
  const options = await profileAgentOptions(profile, { profile: name, sessionId });
  try {
    return await resumeAgent(store, sessionId, options);
  } catch (error) {
    if (!isKeelsonError<StoreErrorCode>(error, "not-found")) throw error;
  }
  if (!creates)
    throw new HostError(
      "not-found",
      `no session ${JSON.stringify(sessionId)} in the store: nothing to answer or cancel`,
    );
  if (!wanted())
    throw new HostError("cancelled", `session ${JSON.stringify(sessionId)} was not created: its prompt was dropped`);
  const agent = createAgent({ ...options, store, sessionId });
  try {
    await agent.flush(); // awaits the store's create
    return agent;
  } catch (error) {
    await agent.dispose();
    // Created by another writer between our load and our create: it exists now, so resume it.
    if (isKeelsonError<StoreErrorCode>(error, "exists")) return resumeAgent(store, sessionId, options);
    throw error;
  }
}
