export * from './recipe.schema.ts';
export {
  runRecipe,
  describeStep,
  StopRun,
  type RecipeFailure,
  type RecipeRunOptions,
  type RecipeRunResult,
  type RecipeStop,
  type StepProgress,
} from './recipe.runner.ts';
export {
  resolveRecipe,
  shippedRecipes,
  recipeApps,
  loadRecipeFiles,
  fitsAppVersion,
  compareVersions,
  type RecipeQuery,
  type ResolvedRecipe,
} from './recipe.resolver.ts';
export { fillTemplate, templateFilters, TemplateError } from './recipe.template.ts';
export { manualClock, seededRandom, systemClock, drawCount, drawDuration, type Clock } from './recipe.pacing.ts';
export { parseUiXml, type UiNode, type UiScreen } from './recipe.ui.ts';
export { PATTERN_MAX_LENGTH, PATTERN_MAX_PROGRAM, patternFinds, patternProblem } from './recipe.pattern.ts';
export {
  coversApp,
  isTestedVersion,
  recipeLanguage,
  recipePackages,
  sameLanguage,
  testedRange,
  type Coverage,
  type CoverageOptions,
  type CoverageQuery,
} from './recipe.coverage.ts';
export { recipeEvidence, unverifiedClaims, usedElements, type SelectorEvidence } from './recipe.evidence.ts';
export {
  CAPTURE_LIMITS,
  captureApp,
  captureTree,
  captureTreeIndexed,
  checkSelector,
  findAll,
  isOnScreen,
  nodeAt,
  nodeMatches,
  selectorsFor,
  uiCaptureSchema,
  uiNodeSchema,
  uiTreeSchema,
  type SelectorCandidate,
  type UiCapture,
  type UiTree,
} from './recipe.inspect.ts';
