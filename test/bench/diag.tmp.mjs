import { brokeredOverhead } from './brokered-diag.tmp.mjs';
console.log(await brokeredOverhead(5));
