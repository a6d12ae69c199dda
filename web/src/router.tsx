import { createRootRoute, createRoute, createRouter, lazyRouteComponent } from '@tanstack/react-router';
import { NotFoundPage } from './components/not-found-page.tsx';
import { RootLayout } from './components/root-layout.tsx';
import { usageSearch } from './routes/usage/usage-search.ts';

const tokenSearch = (search: Record<string, unknown>) => ({ token: typeof search['token'] === 'string' ? search['token'] : '' });
/** Where to return after signing in: a path of this console only, never another site. */
const signInSearch = (search: Record<string, unknown>) => ({ ...(typeof search['next'] === 'string' && /^\/(?!\/)/.test(search['next']) && { next: search['next'] }) });

// Every page is its own chunk, loaded when first visited: the sign-in page downloads no chart or editor code.
const root = createRootRoute({ component: RootLayout, notFoundComponent: NotFoundPage });
const signIn = createRoute({
  getParentRoute: () => root,
  path: '/sign-in',
  validateSearch: signInSearch,
  staticData: { title: 'Sign in' },
  component: lazyRouteComponent(() => import('./routes/sign-in/sign-in-page.tsx'), 'SignInPage'),
});
const setup = createRoute({
  getParentRoute: () => root,
  path: '/setup',
  validateSearch: tokenSearch,
  staticData: { title: 'Set up Junction' },
  component: lazyRouteComponent(() => import('./routes/setup/setup-page.tsx'), 'SetupPage'),
});
const setPassword = createRoute({
  getParentRoute: () => root,
  path: '/set-password',
  validateSearch: tokenSearch,
  staticData: { title: 'Set your password' },
  component: lazyRouteComponent(() => import('./routes/setup/set-password-page.tsx'), 'SetPasswordPage'),
});
const invite = createRoute({
  getParentRoute: () => root,
  path: '/invite',
  validateSearch: tokenSearch,
  staticData: { title: 'Accept invitation' },
  component: lazyRouteComponent(() => import('./routes/invite/accept-invitation-page.tsx'), 'AcceptInvitationPage'),
});
const app = createRoute({ getParentRoute: () => root, id: 'app', component: lazyRouteComponent(() => import('./components/app-layout.tsx'), 'AppLayout') });
const overview = createRoute({
  getParentRoute: () => app,
  path: '/',
  staticData: { title: 'Overview' },
  component: lazyRouteComponent(() => import('./routes/overview/overview-page.tsx'), 'OverviewPage'),
});
const keys = createRoute({ getParentRoute: () => app, path: '/keys', staticData: { title: 'Keys' }, component: lazyRouteComponent(() => import('./routes/keys/keys-page.tsx'), 'KeysPage') });
const usage = createRoute({
  getParentRoute: () => app,
  path: '/usage',
  validateSearch: usageSearch,
  staticData: { title: 'Usage' },
  component: lazyRouteComponent(() => import('./routes/usage/usage-page.tsx'), 'UsagePage'),
});
const credits = createRoute({
  getParentRoute: () => app,
  path: '/credits',
  staticData: { title: 'Credits' },
  component: lazyRouteComponent(() => import('./routes/credits/credits-page.tsx'), 'CreditsPage'),
});
const models = createRoute({
  getParentRoute: () => app,
  path: '/models',
  staticData: { title: 'Models' },
  component: lazyRouteComponent(() => import('./routes/models/models-page.tsx'), 'ModelsPage'),
});
const agents = createRoute({
  getParentRoute: () => app,
  path: '/agents',
  staticData: { title: 'Agents' },
  component: lazyRouteComponent(() => import('./routes/agents/agents-page.tsx'), 'AgentsPage'),
});
const newAgent = createRoute({
  getParentRoute: () => app,
  path: '/agents/new',
  staticData: { title: 'New agent' },
  component: lazyRouteComponent(() => import('./routes/agents/new-agent-page.tsx'), 'NewAgentPage'),
});
const agent = createRoute({
  getParentRoute: () => app,
  path: '/agents/$agentId',
  staticData: { title: 'Agent' },
  component: lazyRouteComponent(() => import('./routes/agents/agent-page.tsx'), 'AgentPage'),
});
const agentConversations = createRoute({
  getParentRoute: () => app,
  path: '/agents/$agentId/conversations',
  staticData: { title: 'Conversations' },
  component: lazyRouteComponent(() => import('./routes/agents/agent-conversations-page.tsx'), 'AgentConversationsPage'),
});
const conversation = createRoute({
  getParentRoute: () => app,
  path: '/agents/$agentId/conversations/$conversationId',
  staticData: { title: 'Conversation' },
  component: lazyRouteComponent(() => import('./routes/agents/conversation-page.tsx'), 'ConversationPage'),
});
const agentEvaluations = createRoute({
  getParentRoute: () => app,
  path: '/agents/$agentId/evaluations',
  staticData: { title: 'Evaluations' },
  component: lazyRouteComponent(() => import('./routes/evaluations/agent-evaluations-page.tsx'), 'AgentEvaluationsPage'),
});
const evaluation = createRoute({
  getParentRoute: () => app,
  path: '/agents/$agentId/evaluations/$evaluationId',
  staticData: { title: 'Evaluation' },
  component: lazyRouteComponent(() => import('./routes/evaluations/evaluation-page.tsx'), 'EvaluationPage'),
});
const experiment = createRoute({
  getParentRoute: () => app,
  path: '/agents/$agentId/experiments/$experimentId',
  staticData: { title: 'Experiment' },
  component: lazyRouteComponent(() => import('./routes/evaluations/experiment-page.tsx'), 'ExperimentPage'),
});
const runs = createRoute({ getParentRoute: () => app, path: '/runs', staticData: { title: 'Runs' }, component: lazyRouteComponent(() => import('./routes/runs/run-page.tsx'), 'RunsPage') });
const run = createRoute({ getParentRoute: () => app, path: '/runs/$runId', staticData: { title: 'Run' }, component: lazyRouteComponent(() => import('./routes/runs/run-page.tsx'), 'RunPage') });
const knowledge = createRoute({
  getParentRoute: () => app,
  path: '/knowledge',
  staticData: { title: 'Knowledge' },
  component: lazyRouteComponent(() => import('./routes/knowledge/knowledge-page.tsx'), 'KnowledgePage'),
});
const datasets = createRoute({
  getParentRoute: () => app,
  path: '/datasets',
  staticData: { title: 'Datasets' },
  component: lazyRouteComponent(() => import('./routes/datasets/datasets-page.tsx'), 'DatasetsPage'),
});
const dataset = createRoute({
  getParentRoute: () => app,
  path: '/datasets/$datasetId',
  staticData: { title: 'Dataset' },
  component: lazyRouteComponent(() => import('./routes/datasets/dataset-page.tsx'), 'DatasetPage'),
});
const settings = createRoute({
  getParentRoute: () => app,
  path: '/settings',
  staticData: { title: 'Settings' },
  component: lazyRouteComponent(() => import('./routes/settings/settings-page.tsx'), 'SettingsPage'),
});

export const router = createRouter({
  routeTree: root.addChildren([
    signIn,
    setup,
    setPassword,
    invite,
    app.addChildren([
      overview,
      keys,
      usage,
      credits,
      models,
      agents,
      newAgent,
      agent,
      agentConversations,
      conversation,
      agentEvaluations,
      evaluation,
      experiment,
      runs,
      run,
      knowledge,
      datasets,
      dataset,
      settings,
    ]),
  ]),
  defaultPreload: 'intent',
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
  interface StaticDataRouteOption {
    /** The page's name in the browser tab: "Keys · Junction". */
    title?: string;
  }
}
