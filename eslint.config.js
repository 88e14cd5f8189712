import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './lint/layers.js';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // What may import what (service, src/common, tools, tests, migrations): lint/layers.js.
    plugins: { layers: layersPlugin },
    rules: { 'layers/imports': 'error' },
  },
  {
    files: ['tools/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
);
