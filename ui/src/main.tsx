import { render } from 'preact';
import { Root } from './app.js';
// The stylesheets in cascade order: phone widths override the rules before them.
import './styles/base.css';
import './styles/layout.css';
import './styles/details.css';
import './styles/phone.css';
import './styles/flows.css';
import './styles/review.css';
import './styles/workbench.css';

const root = document.getElementById('app');
if (root) render(<Root />, root);
