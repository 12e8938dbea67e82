import { Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { ProtectedRoute } from '../features/auth/ProtectedRoute';
import { lazyNamed } from '../shared/lazy';

const LoginPage = lazyNamed(() => import('../features/auth/LoginPage'), 'LoginPage');
const SignupPage = lazyNamed(() => import('../features/auth/SignupPage'), 'SignupPage');
const ResetPasswordPage = lazyNamed(() => import('../features/auth/ResetPasswordPage'), 'ResetPasswordPage');
const NotFoundPage = lazyNamed(() => import('./NotFoundPage'), 'NotFoundPage');
const ShellLayout = lazyNamed(() => import('./shell/ShellLayout'), 'ShellLayout');

const DashboardPage = lazyNamed(() => import('../features/dashboard/DashboardPage'), 'DashboardPage');
const DevicesPage = lazyNamed(() => import('../features/devices/DevicesPage'), 'DevicesPage');
const GroupControlPage = lazyNamed(() => import('../features/devices/group/GroupControlPage'), 'GroupControlPage');
const AppsPage = lazyNamed(() => import('../features/apps/AppsPage'), 'AppsPage');
const TasksPage = lazyNamed(() => import('../features/tasks/TasksPage'), 'TasksPage');
const MyTasksPage = lazyNamed(() => import('../features/tasks/MyTasksPage'), 'MyTasksPage');
const VasPage = lazyNamed(() => import('../features/vas/VasPage'), 'VasPage');
const MonitorPage = lazyNamed(() => import('../features/monitor/MonitorPage'), 'MonitorPage');
const AnalyticsPage = lazyNamed(() => import('../features/analytics/AnalyticsPage'), 'AnalyticsPage');
const SettingsPage = lazyNamed(() => import('../features/settings/SettingsPage'), 'SettingsPage');
const CampaignsPage = lazyNamed(() => import('../features/campaigns/CampaignsPage'), 'CampaignsPage');
const RecipesPage = lazyNamed(() => import('../features/recipes/RecipesPage'), 'RecipesPage');
const CampaignDetailPage = lazyNamed(() => import('../features/campaigns/CampaignDetailPage'), 'CampaignDetailPage');
const ContentPage = lazyNamed(() => import('../features/content/ContentPage'), 'ContentPage');
const CalendarPage = lazyNamed(() => import('../features/content/calendar/CalendarPage'), 'CalendarPage');
const AccountsPage = lazyNamed(() => import('../features/accounts/AccountsPage'), 'AccountsPage');
const AccountDetailPage = lazyNamed(() => import('../features/accounts/AccountDetailPage'), 'AccountDetailPage');
const RecipeEditorPage = lazyNamed(() => import('../features/recipes/RecipeEditorPage'), 'RecipeEditorPage');
const WallPage = lazyNamed(() => import('../features/wall/WallPage'), 'WallPage');
const DryRunPage = lazyNamed(() => import('../features/recipes/dryrun/TraceView'), 'DryRunPage');

/**
 * Every screen past the landing page (App.tsx shows that one). Unknown paths, inside or outside the shell, read
 * 'Page Not Found'.
 */
export function AppRoutes() {
  return (
    <Suspense fallback={null}>
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="/signup" element={<SignupPage />} />
        <Route path="/reset-password" element={<ResetPasswordPage />} />
        {/* Outside the shell and its sign-in: a TV opens it with a wall link's token (or a signed-in member without one). */}
        <Route path="/monitor/wall" element={<WallPage />} />
        <Route
          element={
            <ProtectedRoute>
              <ShellLayout />
            </ProtectedRoute>
          }
        >
          <Route path="/dashboard" element={<DashboardPage />} />
          <Route path="/campaigns" element={<CampaignsPage />} />
          <Route path="/campaigns/recipes" element={<RecipesPage />} />
          <Route path="/campaigns/:id" element={<CampaignDetailPage />} />
          <Route path="/content" element={<ContentPage />} />
          <Route path="/content/calendar" element={<CalendarPage />} />
          <Route path="/accounts" element={<AccountsPage />} />
          <Route path="/accounts/:id" element={<AccountDetailPage />} />
          <Route path="/devices" element={<DevicesPage />} />
          <Route path="/devices/apps" element={<AppsPage />} />
          <Route path="/devices/group-control" element={<GroupControlPage />} />
          <Route path="/vas" element={<VasPage />} />
          <Route path="/tasks" element={<TasksPage />} />
          <Route path="/tasks/mine" element={<MyTasksPage />} />
          <Route path="/monitor" element={<MonitorPage />} />
          <Route path="/analytics" element={<AnalyticsPage />} />
          <Route path="/settings/*" element={<SettingsPage />} />
          <Route path="/recipes/:id" element={<RecipeEditorPage />} />
          <Route path="/dry-runs/:id" element={<DryRunPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Suspense>
  );
}
