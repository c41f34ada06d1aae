import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.assay/**', 'coverage/**', 'helm/**', 'docker/**', 'libs/client/src/generated/**', 'apps/console/dist/**', 'tests/console/report/**', 'tests/console/results/**', 'tests/.tmp/**', 'tests/bench/.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
      eqeqeq: ['error', 'always'],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@assay/*/src/*', '@assay/*/*', '!@assay/contracts/catalogues', '!@assay/steps/playwright-export'],
              message: 'Import a lib through its index: @assay/<name> (or a light entry its package.json exports: @assay/contracts/catalogues, @assay/steps/playwright-export).',
            },
          ],
        },
      ],
    },
  },
  // The console and the fixture single-page app run in the browser.
  { files: ['apps/console/src/**/*.{ts,tsx}', 'tests/fixtures/spa/src/**/*.jsx'], languageOptions: { globals: { ...globals.browser } } },
);
