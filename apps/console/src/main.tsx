import { render } from 'preact';
import { resumeSession } from './api';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('app')!);
// A reload, a new tab or a pasted link: the sign-in resumes from its refresh cookie, and the link's screen shows.
void resumeSession();
