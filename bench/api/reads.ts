/** The list and stats reads bench:api measures, each with the name its query plans are kept under (bench/plans/). */
export const reads: { name: string; path: string; plan: string }[] = [
  { name: 'GET /api/devices', path: '/api/devices', plan: 'devices' },
  { name: 'GET /api/tasks?limit=50&status=pending', path: '/api/tasks?limit=50&status=pending', plan: 'tasks' },
  { name: 'GET /api/analytics/stats', path: '/api/analytics/stats', plan: 'stats' },
  { name: 'GET /api/activities', path: '/api/activities', plan: 'activities' },
  { name: 'GET /api/tasks/counts', path: '/api/tasks/counts', plan: 'counts' },
  // The analytics page's reads: they aggregate the window's tasks rather than page through rows.
  { name: 'GET /api/analytics/stats?range=7d', path: '/api/analytics/stats?range=7d', plan: 'stats-7d' },
  { name: 'GET /api/analytics/performance', path: '/api/analytics/performance', plan: 'performance' },
  { name: 'GET /api/analytics/timeseries?metric=tasks&range=7d', path: '/api/analytics/timeseries?metric=tasks&range=7d', plan: 'timeseries' },
  { name: 'GET /api/analytics/tables/devices', path: '/api/analytics/tables/devices', plan: 'tables-devices' },
];
