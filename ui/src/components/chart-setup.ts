/**
 * Chart.js with only what a stacked bar chart needs, registered once. Loaded on demand (its own
 * bundle chunk), so that pages without a chart do not carry it.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export { Chart };
