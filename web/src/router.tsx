import { createRootRoute, createRoute, createRouter, Outlet } from '@tanstack/react-router';
import { AppLayout } from './components/app-layout.tsx';
import { AgentPage } from './routes/agents/agent-page.tsx';
import { AgentsPage } from './routes/agents/agents-page.tsx';
import { NewAgentPage } from './routes/agents/new-agent-page.tsx';
import { AcceptInvitationPage } from './routes/invite/accept-invitation-page.tsx';
import { KeysPage } from './routes/keys/keys-page.tsx';
import { KnowledgePage } from './routes/knowledge/knowledge-page.tsx';
import { ModelsPage } from './routes/models/models-page.tsx';
import { OverviewPage } from './routes/overview/overview-page.tsx';
import { SettingsPage } from './routes/settings/settings-page.tsx';
import { SetPasswordPage } from './routes/setup/set-password-page.tsx';
import { SetupPage } from './routes/setup/setup-page.tsx';
import { SignInPage } from './routes/sign-in/sign-in-page.tsx';
import { UsagePage } from './routes/usage/usage-page.tsx';

const tokenSearch = (search: Record<string, unknown>) => ({ token: typeof search['token'] === 'string' ? search['token'] : '' });

const root = createRootRoute({ component: Outlet });
const signIn = createRoute({ getParentRoute: () => root, path: '/sign-in', component: SignInPage });
const setup = createRoute({ getParentRoute: () => root, path: '/setup', validateSearch: tokenSearch, component: SetupPage });
const setPassword = createRoute({ getParentRoute: () => root, path: '/set-password', validateSearch: tokenSearch, component: SetPasswordPage });
const invite = createRoute({ getParentRoute: () => root, path: '/invite', validateSearch: tokenSearch, component: AcceptInvitationPage });
const app = createRoute({ getParentRoute: () => root, id: 'app', component: AppLayout });
const overview = createRoute({ getParentRoute: () => app, path: '/', component: OverviewPage });
const keys = createRoute({ getParentRoute: () => app, path: '/keys', component: KeysPage });
const usage = createRoute({ getParentRoute: () => app, path: '/usage', component: UsagePage });
const models = createRoute({ getParentRoute: () => app, path: '/models', component: ModelsPage });
const agents = createRoute({ getParentRoute: () => app, path: '/agents', component: AgentsPage });
const newAgent = createRoute({ getParentRoute: () => app, path: '/agents/new', component: NewAgentPage });
const agent = createRoute({ getParentRoute: () => app, path: '/agents/$agentId', component: AgentPage });
const knowledge = createRoute({ getParentRoute: () => app, path: '/knowledge', component: KnowledgePage });
const settings = createRoute({ getParentRoute: () => app, path: '/settings', component: SettingsPage });

export const router = createRouter({
  routeTree: root.addChildren([signIn, setup, setPassword, invite, app.addChildren([overview, keys, usage, models, agents, newAgent, agent, knowledge, settings])]),
  defaultPreload: 'intent',
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
