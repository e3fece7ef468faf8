import fc from "fast-check";
import { verifyLog, reconstructRequests } from "../src/reconstruct/index.js";
import { buildLog, logOpsArb } from "../test/support/random-log.js";
const valueArb = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer({min:-3,max:50}), fc.string({maxLength:3}), fc.constant([]), fc.constant({}), fc.constant("append"), fc.constant({op:"replace",start:0,end:0}), fc.constant({op:"replace",start:0,end:1}), fc.constant(-1), fc.constant(1.5));
let n = 0;
fc.assert(fc.property(logOpsArb, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), valueArb), {minLength:1, maxLength:3}), (ops, muts) => {
  const events = JSON.parse(JSON.stringify(buildLog(ops).events));
  if (events.length === 0) return;
  for (const [i, j, k, v] of muts) {
    const ev = events[i % events.length];
    // pick a path: envelope key, data key or nested
    const paths: any[][] = [];
    const walk = (o: any, p: any[]) => { if (o && typeof o === "object") for (const key of Object.keys(o)) { paths.push([...p, key]); if (p.length < 4) walk(o[key], [...p, key]); } };
    walk(ev, []);
    const p = paths[j % paths.length]; if (!p) continue;
    let o = ev; for (const key of p.slice(0, -1)) o = o[key];
    if (v === undefined && k % 2 === 0) delete o[p[p.length-1]]; else o[p[p.length-1]] = v;
  }
  try { const r = verifyLog(events); n++; if (r.ok) { reconstructRequests(events); } } catch (e) { console.log("THREW", String(e), JSON.stringify(muts)); throw e; }
}), { numRuns: 5000 });
console.log("ok", n);
