import { decisionThroughput } from './decision-diag.tmp.mjs';
const r = await decisionThroughput(5);
console.log(r.peak.rps);
