import { Id } from './pages/common.js';

/** A horizontal bar per budget: the part reserved, and what remains of it. */
export interface BudgetBar {
  label: string;
  budget: number;
  reserved: number;
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

/**
 * Labels, bars and figures in three grid columns: a label is HTML (an `Id`, cut with an
 * ellipsis however long a generated task id is), so it can never run over its bar; a bar is
 * SVG in a 0..100 box stretched to its column, so widths are attributes, never inline styles
 * (the CSP allows none). The bars are decoration: the figures beside them say it in text.
 */
export function BudgetChart({ bars }: { bars: BudgetBar[] }) {
  return (
    <div class="budget-chart" role="group" aria-label="Budget per task: reserved and remaining">
      {bars.map((b) => {
        // each bar is its own budget (burn against budget), so one large budget does not
        // flatten every other bar to a sliver
        const wReserved = b.budget === 0 ? 0 : (Math.min(b.reserved, b.budget) / b.budget) * 100;
        return (
          <div class="budget-row" key={b.label} data-task={b.label}>
            <span class="budget-label">
              <Id value={b.label} label="task id" />
            </span>
            <svg class="budget-bar" viewBox="0 0 100 20" preserveAspectRatio="none" aria-hidden="true">
              <rect x={0} y={0} width={100} height={20} class="bar-remaining" />
              <rect x={0} y={0} width={wReserved} height={20} class="bar-reserved" />
            </svg>
            <span class="budget-value">
              {usd(b.reserved)} / {usd(b.budget)}
            </span>
          </div>
        );
      })}
    </div>
  );
}
