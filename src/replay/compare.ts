// Every logged request next to the one the replay rebuilt for the same turn and step: identical,
// or a difference — its first differing segment, the logged event that explains it, and the
// predicted cache cost. A logged request the replay did not make is `missing`; one the replay made
// that the log does not have is `extra`.
import type { ModelRegistry, TokenCounter } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import type { ReconstructedRequest } from "../reconstruct/index.js";
import { CachePredictor } from "./cache-cost.js";
import { stepKey } from "./recorded-log.js";
import type { LogExplainer } from "./explain.js";
import { CanonicalEquality, firstDifference, type PairMemo } from "./segments.js";
import type { RequestDifference } from "./types.js";

export interface CompareInput {
  readonly logged: readonly ReconstructedRequest[];
  readonly replayed: readonly ReconstructedRequest[];
  /** Built on the first difference (it folds the whole log once). */
  readonly explainer: () => LogExplainer;
  /** A fork's seed length: logged requests before it are the part shared with the parent. */
  readonly seedLength: number;
  readonly contributorOf: (message: Message) => string | undefined;
  readonly countTokens?: TokenCounter;
  readonly models?: ModelRegistry;
}

export interface Comparison {
  readonly differences: RequestDifference[];
  readonly identical: number;
}

const keyOf = (r: { readonly turn: number; readonly step: number }): number => stepKey(r.turn, r.step);

export function compareRequests(input: CompareInput): Comparison {
  const eq = new CanonicalEquality();
  const cache = new CachePredictor(input, eq);
  const replayedAt = new Map<number, number>();
  input.replayed.forEach((r, i) => {
    replayedAt.set(keyOf(r), i);
  });
  const used = new Set<number>();
  let explainer: LogExplainer | undefined;
  const explain: LogExplainer["explain"] = (r, segment) => {
    explainer ??= input.explainer();
    return explainer.explain(r, segment);
  };
  const memo: PairMemo = { matched: 0 };
  const differences: RequestDifference[] = [];
  let identical = 0;
  input.logged.forEach((logged, index) => {
    const at = replayedAt.get(keyOf(logged));
    const replayed = at === undefined ? undefined : input.replayed[at];
    const common = {
      index,
      turn: logged.turn,
      step: logged.step,
      stepStartSeq: logged.stepStartSeq,
      inherited: logged.stepStartSeq < input.seedLength,
    };
    if (replayed === undefined) {
      const segment = { kind: "missing" } as const;
      const explainedBy = explain(logged, segment);
      differences.push({
        ...common,
        segment,
        also: [],
        ...(explainedBy === undefined ? {} : { explainedBy }),
        cache: cache.cost({ loggedPrev: undefined, logged, replayedPrev: undefined, replayed, sharedWithLogged: 0 }),
      });
      return;
    }
    used.add(at!);
    const diff = firstDifference(logged, replayed, eq, memo, input.contributorOf);
    if (diff === undefined) {
      identical++;
      return;
    }
    const explainedBy = explain(logged, diff.segment);
    differences.push({
      ...common,
      segment: diff.segment,
      ...(diff.logged === undefined ? {} : { logged: diff.logged }),
      ...(diff.replayed === undefined ? {} : { replayed: diff.replayed }),
      also: diff.also,
      ...(explainedBy === undefined ? {} : { explainedBy }),
      cache: cache.cost({
        loggedPrev: input.logged[index - 1],
        logged,
        replayedPrev: at! > 0 ? input.replayed[at! - 1] : undefined,
        replayed,
        sharedWithLogged: diff.sharedBlocks,
      }),
    });
  });
  input.replayed.forEach((replayed, index) => {
    if (used.has(index)) return;
    differences.push({
      index,
      turn: replayed.turn,
      step: replayed.step,
      segment: { kind: "extra" },
      also: [],
      inherited: false,
      cache: cache.cost({
        loggedPrev: undefined,
        logged: replayed,
        replayedPrev: undefined,
        replayed: undefined,
        sharedWithLogged: 0,
      }),
    });
  });
  return { differences, identical };
}
