/** A horizontal stacked bar chart in plain SVG: reserved and remaining of each budget. */
export interface BudgetBar {
  label: string;
  budget: number;
  reserved: number;
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

export function BudgetChart({ bars }: { bars: BudgetBar[] }) {
  const max = Math.max(1, ...bars.map((b) => b.budget));
  const row = 34;
  const labelW = 140;
  const width = 640;
  const plot = width - labelW - 110;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${width} ${Math.max(1, bars.length) * row + 10}`}
      role="img"
      aria-label="Budget per task: reserved and remaining"
    >
      {bars.map((b, i) => {
        const y = i * row + 6;
        const wBudget = (b.budget / max) * plot;
        const wReserved = b.budget === 0 ? 0 : (Math.min(b.reserved, b.budget) / max) * plot;
        return (
          <g key={b.label}>
            <text x={0} y={y + 16} class="chart-label">
              {b.label}
            </text>
            <rect x={labelW} y={y} width={Math.max(wBudget, 1)} height={20} rx={3} class="bar-remaining" />
            <rect x={labelW} y={y} width={wReserved} height={20} rx={3} class="bar-reserved" />
            <text x={labelW + Math.max(wBudget, 1) + 8} y={y + 15} class="chart-value">
              {usd(b.reserved)} / {usd(b.budget)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
