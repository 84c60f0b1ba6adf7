// The decision and the rule for many commands: every SPEC example, each shell shape, local ones, the guard.
import { describe, expect, it } from 'vitest';
import { alreadyWrapped, classify, rewriteCommand } from '../../lib/classify/index.js';

// [command, rule, rewrite with invocation `sparehand` (heavy) or null (left alone)]
const HEAVY: [string, string, string][] = [
  // SPEC "What is heavy" examples
  ['npm test', 'heavy: npm test', "sparehand run --or-local -- 'npm test'"],
  ['npm run build', 'heavy: npm run build', "sparehand run --or-local -- 'npm run build'"],
  ['pnpm -r test', 'heavy: pnpm test', "sparehand run --or-local -- 'pnpm -r test'"],
  ['yarn test', 'heavy: yarn test', "sparehand run --or-local -- 'yarn test'"],
  ['bun test', 'heavy: bun test', "sparehand run --or-local -- 'bun test'"],
  ['npx vitest run', 'heavy: npx vitest run', "sparehand run --or-local -- 'npx vitest run'"],
  ['jest', 'heavy: jest', "sparehand run --or-local -- 'jest'"],
  ['tsc --noEmit', 'heavy: tsc', "sparehand run --or-local -- 'tsc --noEmit'"],
  ['tsc -b', 'heavy: tsc -b', "sparehand run --or-local -- 'tsc -b'"],
  ['cargo build', 'heavy: cargo build', "sparehand run --or-local -- 'cargo build'"],
  ['cargo test', 'heavy: cargo test', "sparehand run --or-local -- 'cargo test'"],
  ['cargo check', 'heavy: cargo check', "sparehand run --or-local -- 'cargo check'"],
  ['cargo clippy', 'heavy: cargo clippy', "sparehand run --or-local -- 'cargo clippy'"],
  ['go test ./...', 'heavy: go test', "sparehand run --or-local -- 'go test ./...'"],
  ['go build', 'heavy: go build', "sparehand run --or-local -- 'go build'"],
  ['pytest', 'heavy: pytest', "sparehand run --or-local -- 'pytest'"],
  ['python -m pytest', 'heavy: python -m pytest', "sparehand run --or-local -- 'python -m pytest'"],
  ['tox', 'heavy: tox', "sparehand run --or-local -- 'tox'"],
  ['mypy .', 'heavy: mypy', "sparehand run --or-local -- 'mypy .'"],
  ['make', 'heavy: make', "sparehand run --or-local -- 'make'"],
  ['make test', 'heavy: make test', "sparehand run --or-local -- 'make test'"],
  ['mvn test', 'heavy: mvn test', "sparehand run --or-local -- 'mvn test'"],
  ['./gradlew build', 'heavy: gradlew build', "sparehand run --or-local -- './gradlew build'"],
  ['dotnet test', 'heavy: dotnet test', "sparehand run --or-local -- 'dotnet test'"],
  ['swift build', 'heavy: swift build', "sparehand run --or-local -- 'swift build'"],
  ['bazel test //...', 'heavy: bazel test', "sparehand run --or-local -- 'bazel test //...'"],
  // more tools
  ['npm run typecheck', 'heavy: npm run typecheck', "sparehand run --or-local -- 'npm run typecheck'"],
  ['npm run test:unit -- --reporter=dot', 'heavy: npm run test:unit', "sparehand run --or-local -- 'npm run test:unit -- --reporter=dot'"],
  ['pnpm --filter web build', 'heavy: pnpm build', "sparehand run --or-local -- 'pnpm --filter web build'"],
  ['pnpm dlx vitest run', 'heavy: pnpm dlx vitest run', "sparehand run --or-local -- 'pnpm dlx vitest run'"],
  ['bunx jest --ci', 'heavy: bunx jest', "sparehand run --or-local -- 'bunx jest --ci'"],
  ['yarn workspaces foreach -A run test', 'heavy: yarn run test', "sparehand run --or-local -- 'yarn workspaces foreach -A run test'"],
  ['eslint .', 'heavy: eslint', "sparehand run --or-local -- 'eslint .'"],
  ['npx playwright test', 'heavy: npx playwright test', "sparehand run --or-local -- 'npx playwright test'"],
  ['cargo nextest run', 'heavy: cargo nextest', "sparehand run --or-local -- 'cargo nextest run'"],
  ['cargo +nightly test --release', 'heavy: cargo test', "sparehand run --or-local -- 'cargo +nightly test --release'"],
  ['go vet ./...', 'heavy: go vet', "sparehand run --or-local -- 'go vet ./...'"],
  ['python3 -m mypy src', 'heavy: python3 -m mypy', "sparehand run --or-local -- 'python3 -m mypy src'"],
  ['uv run pytest -q', 'heavy: pytest', "sparehand run --or-local -- 'uv run pytest -q'"],
  // the worker makes the project's .venv from its lock or requirements file (issue 9); `run` checks it is there
  ['.venv/bin/pytest -q', 'heavy: pytest', "sparehand run --or-local -- '.venv/bin/pytest -q'"],
  ['mvn -q clean verify', 'heavy: mvn verify', "sparehand run --or-local -- 'mvn -q clean verify'"],
  ['gradle :app:test --tests Foo', 'heavy: gradle test', "sparehand run --or-local -- 'gradle :app:test --tests Foo'"],
  ['make -j8 -C sub all', 'heavy: make all', "sparehand run --or-local -- 'make -j8 -C sub all'"],
  ['pnpm build', 'heavy: pnpm build', "sparehand run --or-local -- 'pnpm build'"],
  ['yarn build', 'heavy: yarn build', "sparehand run --or-local -- 'yarn build'"],
  ['bun run build', 'heavy: bun run build', "sparehand run --or-local -- 'bun run build'"],
  ['node --test', 'heavy: node --test', "sparehand run --or-local -- 'node --test'"],
  ['deno test', 'heavy: deno test', "sparehand run --or-local -- 'deno test'"],
  ['bundle exec rspec', 'heavy: rspec', "sparehand run --or-local -- 'bundle exec rspec'"],
  ['python manage.py test', 'heavy: python manage.py test', "sparehand run --or-local -- 'python manage.py test'"],
  ['golangci-lint run', 'heavy: golangci-lint run', "sparehand run --or-local -- 'golangci-lint run'"],
  ['turbo run build', 'heavy: turbo build', "sparehand run --or-local -- 'turbo run build'"],
  ['nx test app', 'heavy: nx test', "sparehand run --or-local -- 'nx test app'"],
  ['npm run lint:fix', 'heavy: npm run lint:fix', "sparehand run --or-local -- 'npm run lint:fix'"],
  ['c8 npm test', 'heavy: npm test', "sparehand run --or-local -- 'c8 npm test'"],
  ['cross-env NODE_ENV=test jest', 'heavy: jest', "sparehand run --or-local -- 'cross-env NODE_ENV=test jest'"],
  // shapes
  ['cd pkg && npm test', 'heavy: npm test', "cd pkg && sparehand run --or-local -- 'npm test'"],
  ['cd /home/me/proj && npm test', 'heavy: npm test', "cd /home/me/proj && sparehand run --or-local -- 'npm test'"],
  ['cd a; cd b && cargo test', 'heavy: cargo test', "cd a; cd b && sparehand run --or-local -- 'cargo test'"],
  ['cd x && npm test || echo failed', 'heavy: npm test', "cd x && sparehand run --or-local -- 'npm test' || echo failed"],
  ['npm run build && npm test', 'heavy: npm run build', "sparehand run --or-local -- 'npm run build && npm test'"],
  ['CI=1 npm test', 'heavy: npm test', "sparehand run --or-local -- 'CI=1 npm test'"],
  ['env CI=1 FORCE_COLOR=0 npm test', 'heavy: npm test', "sparehand run --or-local -- 'env CI=1 FORCE_COLOR=0 npm test'"],
  ['npm test 2>&1 | tail -50', 'heavy: npm test', "sparehand run --or-local -- 'npm test 2>&1' | tail -50"],
  ['npm test > out.log 2>&1', 'heavy: npm test', "sparehand run --or-local -- 'npm test 2>&1' > out.log"],
  ['npm test > /tmp/x.log 2>&1', 'heavy: npm test', "sparehand run --or-local -- 'npm test 2>&1' > /tmp/x.log"],
  ['npm test 2>&1 | tee /tmp/log | grep -v ok', 'heavy: npm test', "sparehand run --or-local -- 'npm test 2>&1' | tee /tmp/log | grep -v ok"],
  ['bash -c "npm test"', 'heavy: npm test', 'sparehand run --or-local -- \'bash -c "npm test"\''],
  ["bash -euo pipefail -c 'npm test | tail'", 'heavy: npm test', "sparehand run --or-local -- 'bash -euo pipefail -c '\\''npm test | tail'\\'''"],
  ['bash -lc "cargo test"', 'heavy: cargo test', 'sparehand run --or-local -- \'bash -lc "cargo test"\''],
  ['npx jest --watchAll=false', 'heavy: npx jest', "sparehand run --or-local -- 'npx jest --watchAll=false'"],
  ["sh -c 'cd a && make'", 'heavy: make', "sparehand run --or-local -- 'sh -c '\\''cd a && make'\\'''"],
  ['(cd a && make)', 'heavy: make', "sparehand run --or-local -- '(cd a && make)'"],
  ['(cd a && make) > build.log 2>&1', 'heavy: make', "sparehand run --or-local -- '(cd a && make) 2>&1' > build.log"],
  ['time npm test', 'heavy: npm test', "time sparehand run --or-local -- 'npm test'"],
  ['timeout 600 npm test', 'heavy: npm test', "timeout 600 sparehand run --or-local -- 'npm test'"],
  ['timeout -k 5 10m cargo test 2>&1 | tail', 'heavy: cargo test', "timeout -k 5 10m sparehand run --or-local -- 'cargo test 2>&1' | tail"],
  ['npm test &', 'heavy: npm test', "sparehand run --or-local -- 'npm test' &"],
  ['npm run build && npm test &', 'heavy: npm run build', "sparehand run --or-local -- 'npm run build && npm test' &"],
  ['cd x && npm test &', 'heavy: npm test', "cd x && sparehand run --or-local -- 'npm test' &"],
  ['! npm test', 'heavy: npm test', "! sparehand run --or-local -- 'npm test'"],
  ['npm test < input.txt', 'heavy: npm test', "sparehand run --or-local -- 'npm test < input.txt'"],
  ['cd "$(git rev-parse --show-toplevel)" && npm test', 'heavy: npm test', 'cd "$(git rev-parse --show-toplevel)" && sparehand run --or-local -- \'npm test\''],
  ['npm test; echo done', 'heavy: npm test', "sparehand run --or-local -- 'npm test; echo done'"],
  ['npm test || echo failed', 'heavy: npm test', "sparehand run --or-local -- 'npm test || echo failed'"],
  ['set -e; npm run lint; npm test', 'heavy: npm run lint', "sparehand run --or-local -- 'set -e; npm run lint; npm test'"],
  ['cargo fmt && cargo clippy && cargo test', 'heavy: cargo clippy', "sparehand run --or-local -- 'cargo fmt && cargo clippy && cargo test'"],
  ['npm test # all of them', 'heavy: npm test', "sparehand run --or-local -- 'npm test' # all of them"],
  ["npm test -- -t 'it'\\''s $fine'", 'heavy: npm test', "sparehand run --or-local -- 'npm test -- -t '\\''it'\\''\\'\\'''\\''s $fine'\\'''"],
  ['npm run build && npm test 2>&1 | tail -5', 'heavy: npm run build', "sparehand run --or-local -- 'npm run build && npm test 2>&1 | tail -5'"],
  ['npm test\n', 'heavy: npm test', "sparehand run --or-local -- 'npm test'\n"],
  // families and scripts it missed (issue 11)
  ['npm run jest', 'heavy: npm run jest', "sparehand run --or-local -- 'npm run jest'"],
  ['npm run eslint', 'heavy: npm run eslint', "sparehand run --or-local -- 'npm run eslint'"],
  ['pnpm run playwright test', 'heavy: pnpm run playwright', "sparehand run --or-local -- 'pnpm run playwright test'"],
  ['yarn run vue-tsc --noEmit', 'heavy: yarn run vue-tsc', "sparehand run --or-local -- 'yarn run vue-tsc --noEmit'"],
  ['flutter test', 'heavy: flutter test', "sparehand run --or-local -- 'flutter test'"],
  ['flutter analyze', 'heavy: flutter analyze', "sparehand run --or-local -- 'flutter analyze'"],
  ['dart test', 'heavy: dart test', "sparehand run --or-local -- 'dart test'"],
  ['dart analyze', 'heavy: dart analyze', "sparehand run --or-local -- 'dart analyze'"],
  ['cargo hack check --feature-powerset', 'heavy: cargo hack check', "sparehand run --or-local -- 'cargo hack check --feature-powerset'"],
  ['cargo mutants', 'heavy: cargo mutants', "sparehand run --or-local -- 'cargo mutants'"],
  ['cargo insta test', 'heavy: cargo insta test', "sparehand run --or-local -- 'cargo insta test'"],
  ['pdm run lint', 'heavy: pdm run lint', "sparehand run --or-local -- 'pdm run lint'"],
  ['php artisan test', 'heavy: artisan test', "sparehand run --or-local -- 'php artisan test'"],
  ['php vendor/bin/phpunit', 'heavy: phpunit', "sparehand run --or-local -- 'php vendor/bin/phpunit'"],
  ['deno task test', 'heavy: deno task test', "sparehand run --or-local -- 'deno task test'"],
  ['pants test ::', 'heavy: pants test', "sparehand run --or-local -- 'pants test ::'"],
  ['pants fmt lint ::', 'heavy: pants lint', "sparehand run --or-local -- 'pants fmt lint ::'"],
  ['rush build', 'heavy: rush build', "sparehand run --or-local -- 'rush build'"],
  ['rushx test', 'heavy: rushx test', "sparehand run --or-local -- 'rushx test'"],
  ['moon run app:test', 'heavy: moon test', "sparehand run --or-local -- 'moon run app:test'"],
  ['moon check', 'heavy: moon check', "sparehand run --or-local -- 'moon check'"],
  ['storybook build', 'heavy: storybook build', "sparehand run --or-local -- 'storybook build'"],
  ['npx wdio run ./wdio.conf.ts', 'heavy: npx wdio run', "sparehand run --or-local -- 'npx wdio run ./wdio.conf.ts'"],
  ['stylelint "**/*.css"', 'heavy: stylelint', 'sparehand run --or-local -- \'stylelint "**/*.css"\''],
  ['maturin build --release', 'heavy: maturin build', "sparehand run --or-local -- 'maturin build --release'"],
  // a chain is split: heavy parts through sparehand, the parts that must stay here run here (issue 11, SPEC)
  ['cargo test && git status', 'heavy: cargo test', "sparehand run --or-local -- 'cargo test' && git status"],
  ['npm test && git diff', 'heavy: npm test', "sparehand run --or-local -- 'npm test' && git diff"],
  ['npm test; git diff --stat', 'heavy: npm test', "sparehand run --or-local -- 'npm test'; git diff --stat"],
  ['npm run build && npm start', 'heavy: npm run build', "sparehand run --or-local -- 'npm run build' && npm start"],
  ['cd pkg && npm test && cd ..', 'heavy: npm test', "cd pkg && sparehand run --or-local -- 'npm test' && cd .."],
  ['npm test && git push', 'heavy: npm test', "sparehand run --or-local -- 'npm test' && git push"],
  ['npm test && ./deploy.sh', 'heavy: npm test', "sparehand run --or-local -- 'npm test' && ./deploy.sh"],
  ['cd pkg && npm run build && docker build .', 'heavy: npm run build', "cd pkg && sparehand run --or-local -- 'npm run build' && docker build ."],
  [
    'npm run lint && npm test 2>&1 | tail -5; git diff',
    'heavy: npm run lint',
    "sparehand run --or-local -- 'npm run lint && npm test 2>&1 | tail -5'; git diff",
  ],
  ['npm test 2>&1 | tail -5 && git diff', 'heavy: npm test', "sparehand run --or-local -- 'npm test 2>&1' | tail -5 && git diff"],
  ['npm test > out.log 2>&1 || git stash', 'heavy: npm test', "sparehand run --or-local -- 'npm test 2>&1' > out.log || git stash"],
  ['npm test && echo ok && git diff', 'heavy: npm test', "sparehand run --or-local -- 'npm test' && echo ok && git diff"],
  ['echo start && npm test && git diff', 'heavy: npm test', "sparehand run --or-local -- 'echo start && npm test' && git diff"],
  ['npm test || exit 1; git diff', 'heavy: npm test', "sparehand run --or-local -- 'npm test' || exit 1; git diff"],
  [
    'npm run build && cd dist && npm test && cd ..',
    'heavy: npm run build',
    "sparehand run --or-local -- 'npm run build' && cd dist && sparehand run --or-local -- 'npm test' && cd ..",
  ],
  ['echo hi; cd pkg && npm test', 'heavy: npm test', "echo hi; cd pkg && sparehand run --or-local -- 'npm test'"],
  ['builtin cd pkg && npm test && builtin cd ..', 'heavy: npm test', "builtin cd pkg && sparehand run --or-local -- 'npm test' && builtin cd .."],
  ['npm test && git diff &', 'heavy: npm test', "sparehand run --or-local -- 'npm test' && git diff &"],
  ['npm test; npm run lint &', 'heavy: npm test', "sparehand run --or-local -- 'npm test'; sparehand run --or-local -- 'npm run lint' &"],
  ['npm test | less', 'heavy: npm test', "sparehand run --or-local -- 'npm test' | less"],
  ['echo $HOME && npm test', 'heavy: npm test', "echo $HOME && sparehand run --or-local -- 'npm test'"],
  // a part that cannot go runs here, and so does what follows it
  [
    'npm run build && npm test > /tmp/x.log',
    'heavy: npm run build',
    "sparehand run --or-local -- 'npm run build' && sparehand run --or-local -- 'npm test' > /tmp/x.log",
  ],
  ['npm run build && npm test -- $FILE', 'heavy: npm run build', "sparehand run --or-local -- 'npm run build' && npm test -- $FILE"],
  ['npm test && git stash && npm run lint', 'heavy: npm test', "sparehand run --or-local -- 'npm test' && git stash && npm run lint"],
  // wrappers: option spellings GNU getopt accepts, and wrappers it did not know (issue 11)
  ['timeout -vk 5 300 cargo test', 'heavy: cargo test', "timeout -vk 5 300 sparehand run --or-local -- 'cargo test'"],
  ['timeout -p 300 cargo test', 'heavy: cargo test', "timeout -p 300 sparehand run --or-local -- 'cargo test'"],
  ['timeout --kill-after=5 --pres 300 cargo test', 'heavy: cargo test', "timeout --kill-after=5 --pres 300 sparehand run --or-local -- 'cargo test'"],
  ['/usr/bin/time -pf %e cargo build', 'heavy: cargo build', "sparehand run --or-local -- '/usr/bin/time -pf %e cargo build'"],
  ['/usr/bin/time -vo out.txt cargo build', 'heavy: cargo build', "sparehand run --or-local -- '/usr/bin/time -vo out.txt cargo build'"],
  ['nix develop -c cargo test', 'heavy: cargo test', "sparehand run --or-local -- 'nix develop -c cargo test'"],
  ['nix shell nixpkgs#hello -c cargo test', 'heavy: cargo test', "sparehand run --or-local -- 'nix shell nixpkgs#hello -c cargo test'"],
  ['noglob cargo test', 'heavy: cargo test', "noglob sparehand run --or-local -- 'cargo test'"],
  ['noglob timeout 60 cargo test 2>&1 | tail', 'heavy: cargo test', "noglob timeout 60 sparehand run --or-local -- 'cargo test 2>&1' | tail"],
];

const LOCAL: [string, string][] = [
  ['npm install', 'local: npm install'],
  ['npm ci', 'local: npm ci'],
  ['pip install -r requirements.txt', 'local: pip'],
  ['cargo install ripgrep', 'local: cargo install'],
  ['npm run dev', 'local: npm run dev'],
  ['npm start', 'local: npm start'],
  ['pnpm run test:watch', 'local: pnpm run test:watch'],
  ['vite dev', 'local: vite dev'],
  ['vitest --watch', 'local: vitest --watch'],
  ['vitest watch', 'local: vitest watch'],
  ['npm test -- --watch', 'local: npm test --watch'],
  ['jest --watchAll', 'local: jest --watchAll'],
  ['tsc -w', 'local: tsc -w'],
  ['cargo watch -x test', 'local: cargo watch'],
  ['cargo run', 'local: cargo run'],
  ['go run .', 'local: go run'],
  ['python', 'local: python'],
  ['node', 'local: node'],
  ['git status', 'local: git status'],
  ['git push', 'local: git push'],
  ['docker build .', 'local: docker'],
  ['vercel deploy --prod', 'local: vercel'],
  ['vim src/main.rs', 'local: vim'],
  ['less log.txt', 'local: less'],
  ['make install', 'local: make install'],
  ['make clean', 'local: make clean'],
  ['mvn install', 'local: mvn install'],
  ['./gradlew bootRun', 'local: gradlew bootRun'],
  ['cmake -S . -B build', 'local: cmake'],
  ['bun install', 'local: bun install'],
  ['yarn', 'local: yarn'],
  ['dotnet run', 'local: dotnet run'],
  ['bazel run //app', 'local: bazel run'],
  ['npm publish', 'local: npm publish'],
  ['kubectl apply -f k.yaml', 'local: kubectl'],
  ['next dev', 'local: next dev'],
  ['webpack serve', 'local: webpack serve'],
  ['npx playwright install', 'local: npx playwright install'],
  ['bun run index.ts', 'local: bun run index.ts'],
  ['mvn spring-boot:run', 'local: mvn spring-boot:run'],
  ['gradle test --continuous', 'local: gradle --continuous'],
  ['python -m http.server', 'local: python -m http.server'],
  ['npm run clean', 'local: npm run clean'],
  ['npm run e2e:open', 'local: npm run e2e:open'],
  ['pnpm -r --parallel run dev', 'local: pnpm run dev'],
  ['rm -rf dist && npm run build', 'local: rm'],
  ['source .venv/bin/activate && pytest', 'local: not known to be safe on a worker: source .venv/bin/activate'],
  ['make -j$(nproc)', 'local: command substitution'],
  ['npm install && npm test', 'local: npm install'],
  ['bash -c "npm ci && npm test"', 'local: npm ci'],
  // offloaded before issue 11, but they need this machine
  ['go test -exec sudo ./pkg', 'local: go test -exec'],
  ['go test -exec=xcrun-simctl ./...', 'local: go test -exec'],
  ['bun typecheck -w', 'local: bun typecheck -w'],
  ['pnpm run build -w', 'local: pnpm run build -w'],
  ['timeout 60 ../cargo test', 'local: program not on the worker: ../cargo'],
  // a clean must delete files here (issue 11)
  ['ninja clean', 'local: ninja clean'],
  ['ninja -t clean', 'local: ninja -t clean'],
  ['ninja -C build -t clean', 'local: ninja -t clean'],
  ['cmake --build build --target clean', 'local: cmake --build --target clean'],
  ['cmake --build build -t clean', 'local: cmake --build --target clean'],
  // C and C++ build trees are configured here, with this machine's paths, in an ignored folder: they stay
  // here (docs/classify.md, "C and C++ build trees"), though SPEC's list of examples names ninja and cmake --build
  ['cmake --build build --target all -j8', 'local: cmake --build'],
  ['ninja', 'local: ninja'],
  ['ninja -C build', 'local: ninja'],
  ['ctest --test-dir build', 'local: ctest'],
  ['ctest --output-on-failure', 'local: ctest'],
  ['meson test -C build', 'local: meson test'],
  ['meson compile -C build', 'local: meson compile'],
  // the same families' local commands
  ['flutter run', 'local: flutter run'],
  ['flutter drive --target=test_driver/app.dart', 'local: flutter drive'],
  ['cargo insta review', 'local: cargo insta review'],
  ['pdm run dev', 'local: pdm run dev'],
  ['php artisan serve', 'local: artisan serve'],
  ['nix develop', 'local: nix develop'],
  ['deno task dev', 'local: deno task dev'],
  ['pants run src/app:bin', 'local: pants run'],
  ['rush install', 'local: rush install'],
  ['moon run web:dev', 'local: moon dev'],
  ['storybook dev -p 6006', 'local: storybook dev'],
  ['maturin develop', 'local: maturin develop'],
  // chains where no split keeps the meaning
  ['export CI=1 && npm test && git diff', 'local: changes the shell: export'],
  ['set -e; npm test; git diff', 'local: changes the shell: set'],
  ['CI=1; npm test; cd ..', 'local: changes the shell: assignment'],
  ['export CI=1; cd pkg && npm test', 'local: changes the shell: export'],
  ['mkdir -p out; cd pkg && npm test', 'local: creates files before the heavy part: mkdir'],
  ['echo x > gen.txt; cd pkg && npm test', 'local: creates files before the heavy part: > gen.txt'],
  ['cd && npm test', 'local: cd outside the project'],
  ['npm start & npm test', 'local: background job'],
  // heavy, but it cannot be cut safely
  ['cat input | npm test', 'local: heavy part reads a pipe'],
  ['npm test & npm run lint', 'local: background job'],
  ['bash -c "npm test &"', 'local: background job'],
  ['npm test < /tmp/in', 'local: path outside the project: /tmp/in'],
  ['npm test -- $TEST_FILE', 'local: expands $TEST_FILE'],
  ['pytest ~/proj/tests', 'local: path outside the project: ~/proj/tests'],
  ['npm test -- --junit=/tmp/r.xml', 'local: path outside the project: /tmp/r.xml'],
  ['npm test $(cat args)', 'local: command substitution'],
  ['npm test `cat args`', 'local: command substitution'],
  ['npm run build && cd && npm test', 'local: cd outside the project'],
  ['bash -c "npm test > /tmp/out"', 'local: path outside the project: /tmp/out'],
  // cannot parse
  ["npm test 'unbalanced", 'local: cannot parse (unbalanced quote)'],
  ['npm test <<EOF\nx\nEOF', 'local: cannot parse (heredoc)'],
  ['diff <(npm test) expected', 'local: cannot parse (process substitution)'],
  ['if true; then npm test; fi', 'local: cannot parse (compound command (if))'],
  ['for i in 1 2; do npm test; done', 'local: cannot parse (compound command (for))'],
  ['{ npm test; }', 'local: cannot parse (compound command ({))'],
  ['npm test &&', 'local: cannot parse (nothing after "&&")'],
  ['npm test )', 'local: cannot parse (unexpected ")")'],
  ['f() { npm test; }', 'local: cannot parse (function definition or misplaced "(")'],
];

const NOT_HEAVY: [string, string][] = [
  ['ls -la', 'none'],
  ['cat package.json', 'light: cat'],
  ['echo hi', 'light: echo'],
  ['grep -r foo src', 'light: grep'],
  ['node scripts/gen.js', 'none'],
  ['npm run generate', 'none'],
  ['ruff check .', 'light: ruff'],
  ['prettier --check .', 'light: prettier'],
  ['eslint src/a.ts', 'light: eslint (single files)'],
  ['pytest --version', 'light: pytest --help/--version'],
  ['cargo fmt', 'light: cargo fmt'],
  ['ninja -t compdb', 'light: ninja -t compdb'],
  ['stylelint src/a.css', 'light: stylelint (single files)'],
  ['deno task', 'light: deno task'],
  // version queries
  ['mvn -v', 'light: mvn --help/--version'],
  ['./gradlew -v', 'light: gradlew --help/--version'],
  ['cargo -V', 'light: cargo --help/--version'],
  ['npx jest -v', 'light: npx jest --help/--version'],
  ['node -v', 'light: node --help/--version'],
  ['builtin echo hi', 'light: echo'],
  // names that are keys of every JavaScript object are not subcommands, modules or scripts
  ['python -m toString', 'none'],
  ['npm run constructor', 'none'],
  ['cargo constructor', 'light: cargo constructor'],
  ['', 'local: cannot parse (empty command)'],
  ['   ', 'local: cannot parse (empty command)'],
];

describe('classify: heavy commands and their rewrite', () => {
  it.each(HEAVY)('%j → %s', (command, rule, rewrite) => {
    const c = classify(command);
    expect({ heavy: c.heavy, rule: c.rule }).toEqual({ heavy: true, rule });
    expect(rewriteCommand(c, 'sparehand')).toBe(rewrite);
    expect(c.wrap!.map((p) => p.text).join('')).toBe(command);
  });
});

describe('classify: left alone', () => {
  it.each(LOCAL)('%j → %s', (command, rule) => {
    const c = classify(command);
    expect({ heavy: c.heavy, rule: c.rule, wrap: c.wrap }).toEqual({ heavy: false, rule, wrap: undefined });
    expect(c.reason.length).toBeGreaterThan(10);
  });
  it.each(NOT_HEAVY)('%j → %s', (command, rule) => {
    expect(classify(command)).toMatchObject({ heavy: false, rule });
  });
});

// Issue 11's rules with the near misses each must leave as they were: a rule's first case is new, the others
// pin its edge (they held before it and must hold after it).
const EDGES: [string, [string, string, string | null][]][] = [
  [
    "a -w passed on to a script is a watch; npm's own -w and jest's -w N are not",
    [
      ['npm run typecheck -- -w', 'local: npm run typecheck -w', null],
      ['npm run build -w pkg', 'heavy: npm run build', "sparehand run --or-local -- 'npm run build -w pkg'"],
      ['npm test -- -w 4', 'heavy: npm test', "sparehand run --or-local -- 'npm test -- -w 4'"],
    ],
  ],
  [
    '-v/-V ask for a version where the program says so, not where they mean verbose',
    [
      ['make -v', 'light: make --help/--version', null],
      ['go test -v ./...', 'heavy: go test', "sparehand run --or-local -- 'go test -v ./...'"],
      ['cargo test -v', 'heavy: cargo test', "sparehand run --or-local -- 'cargo test -v'"],
      ['mvn -V test', 'heavy: mvn test', "sparehand run --or-local -- 'mvn -V test'"],
    ],
  ],
  [
    "a program reached through .. stays here, except the project's wrappers and node_modules/.bin",
    [
      ['../cargo build', 'local: program not on the worker: ../cargo', null],
      ['cd app && ../gradlew build', 'heavy: gradlew build', "cd app && sparehand run --or-local -- '../gradlew build'"],
      ['../../node_modules/.bin/jest --ci', 'heavy: jest', "sparehand run --or-local -- '../../node_modules/.bin/jest --ci'"],
    ],
  ],
  [
    'hatch run SCRIPT runs the script; hatch run PROGRAM the program',
    [
      ['hatch run test', 'heavy: hatch run test', "sparehand run --or-local -- 'hatch run test'"],
      ['hatch run pytest -x', 'heavy: pytest', "sparehand run --or-local -- 'hatch run pytest -x'"],
    ],
  ],
  [
    'nice: GNU abbreviations, and the old -N',
    [
      ['nice --a 5 cargo build', 'heavy: cargo build', "sparehand run --or-local -- 'nice --a 5 cargo build'"],
      ['nice -5 make', 'heavy: make', "sparehand run --or-local -- 'nice -5 make'"],
    ],
  ],
  [
    'wrappers are followed only where they run a command as their program would',
    [
      ['timeout --k 5 300 cargo test', 'heavy: cargo test', "timeout --k 5 300 sparehand run --or-local -- 'cargo test'"],
      ['timeout --v 300 cargo test', 'none', null],
      ['taskset -c 0-3 cargo build', 'heavy: cargo build', "sparehand run --or-local -- 'taskset -c 0-3 cargo build'"],
      ['taskset -p 123', 'none', null],
      ['chrt -f 10 cargo build', 'heavy: cargo build', "sparehand run --or-local -- 'chrt -f 10 cargo build'"],
      ['chrt -m', 'none', null],
    ],
  ],
  [
    "nix flake check is heavy, nix build is not known (its result link would point into the worker's store)",
    [
      ['nix flake check', 'heavy: nix flake check', "sparehand run --or-local -- 'nix flake check'"],
      ['nix build', 'none', null],
    ],
  ],
  [
    'a script named after its tool is heavy; the tool itself keeps its own rules',
    [
      ['npm run vitest', 'heavy: npm run vitest', "sparehand run --or-local -- 'npm run vitest'"],
      ['pnpm vitest watch', 'local: vitest watch', null],
    ],
  ],
  [
    'C and C++ build trees stay here, with or without the configure step',
    [
      ['cmake --build build', 'local: cmake --build', null],
      ['cmake -B build && cmake --build build', 'local: cmake', null],
    ],
  ],
  [
    'a chain splits after a part that must stay here, not before it',
    [
      ['npm test && git pull', 'heavy: npm test', "sparehand run --or-local -- 'npm test' && git pull"],
      ['git pull && npm test', 'local: git pull', null],
    ],
  ],
  [
    'a cd to a named folder splits the chain; a cd to an unnamed one before a heavy part leaves it alone',
    [
      [
        'npm run build && cd dist && npm test',
        'heavy: npm run build',
        "sparehand run --or-local -- 'npm run build' && cd dist && sparehand run --or-local -- 'npm test'",
      ],
      ['npm run build && cd - && npm test', 'local: cd outside the project', null],
    ],
  ],
];

describe('issue 11: each rule and its edge', () => {
  it.each(EDGES)('%s', (_, cases) => {
    const got = cases.map(([command]) => {
      const c = classify(command);
      return [command, c.rule, c.heavy ? rewriteCommand(c, 'sparehand') : null];
    });
    expect(got).toEqual(cases);
  });
});

describe('guard and SPAREHAND=off', () => {
  const WRAPPED = [
    "sparehand run --or-local -- 'npm test'",
    'sparehand run -- npm test',
    '/usr/local/bin/sparehand run --or-local -- "npm test"',
    './node_modules/.bin/sparehand run -- npm test',
    'node /opt/sh/bin/sparehand.js run --or-local -- npm test',
    "'/usr/bin/node' '/opt/sh/bin/sparehand.js' run --or-local -- 'npm test'",
    '"/usr/bin/node" "/x/bin/sparehand.js" run -- "npm test"',
    'npx sparehand run -- npm test',
    'npx -y sparehand@1 run -- npm test',
    'CI=1 sparehand run -- npm test',
    'env FOO=1 sparehand --debug run -- cargo test',
    "cd pkg && sparehand run --or-local -- 'npm test 2>&1' | tail -5",
    'bash -c "sparehand run -- npm test"',
    "sparehand run -- 'npm test", // unparsable: the text still says it
  ];
  it.each(WRAPPED)('%j is already wrapped', (command) => {
    expect(alreadyWrapped(command)).toBe(true);
    expect(classify(command)).toMatchObject({ heavy: false, rule: 'guard: already runs through sparehand run' });
  });
  it.each(['npm test', 'sparehand classify -- npm test', 'echo sparehand', 'cat sparehand.md', ''])('%j is not wrapped', (command) => {
    expect(alreadyWrapped(command)).toBe(false);
  });
  it.each([
    'SPAREHAND=off npm test',
    'CI=1 SPAREHAND=off cargo test',
    "SPAREHAND='off' npm test",
    'export SPAREHAND=off; npm test',
    'cd x && SPAREHAND=off make',
  ])('%j is turned off', (command) => {
    expect(classify(command)).toMatchObject({ heavy: false, rule: 'off: SPAREHAND=off' });
  });
  it('SPAREHAND=on does not turn it off', () => {
    expect(classify('SPAREHAND=on npm test')).toMatchObject({ heavy: true, rule: 'heavy: npm test' });
  });
});

describe('user rules', () => {
  it('a heavy rule adds a command; local beats heavy; both beat the built-ins', () => {
    const rules = { heavy: ['npm run e2e', './scripts/check.sh', 'npm test'], local: ['npm test', 'cargo test --doc'] };
    expect(classify('npm run e2e -- --headed', rules)).toMatchObject({ heavy: true, rule: 'heavy (config): npm run e2e' });
    expect(classify('scripts/check.sh', rules)).toMatchObject({ heavy: false, rule: 'none' });
    expect(classify('./scripts/check.sh --all', rules)).toMatchObject({ heavy: true, rule: 'heavy (config): ./scripts/check.sh' });
    expect(classify('npm test', rules)).toMatchObject({ heavy: false, rule: 'local (config): npm test' });
    expect(classify('cargo test --doc', rules)).toMatchObject({ heavy: false, rule: 'local (config): cargo test --doc' });
    expect(classify('cargo test --lib', rules)).toMatchObject({ heavy: true, rule: 'heavy: cargo test' });
    expect(classify('npm test && npm run build', rules)).toMatchObject({ heavy: false, rule: 'local (config): npm test' });
    expect(rewriteCommand(classify('npm run build && npm test', rules), 'sparehand')).toBe("sparehand run --or-local -- 'npm run build' && npm test");
  });
  it('a heavy rule sends a build tree command the built-ins keep here', () => {
    expect(classify('ninja -C out')).toMatchObject({ heavy: false, rule: 'local: ninja' });
    expect(classify('ninja -C out', { heavy: ['ninja -C out'] })).toMatchObject({ heavy: true, rule: 'heavy (config): ninja -C out' });
    expect(classify('make -C build', { local: ['make -C build'] })).toMatchObject({ heavy: false, rule: 'local (config): make -C build' });
  });
  it('a trailing * matches the start of a word, and the first word matches by basename', () => {
    const rules = { heavy: ['just test*'], local: ['make docs*'] };
    expect(classify('just test-all', rules)).toMatchObject({ heavy: true, rule: 'heavy (config): just test*' });
    expect(classify('/usr/bin/make docs-html', rules)).toMatchObject({ heavy: false, rule: 'local (config): make docs*' });
  });
});

describe('never throws', () => {
  it.each([
    '\u0000',
    '"',
    "'",
    '`',
    '$(',
    '${',
    '((',
    '))',
    ';;',
    '|',
    '&&&',
    '\\',
    'a\\',
    'x'.repeat(70_000),
    '((npm test))',
    '$((1+2))',
    'npm test $((1+2))',
    '\uD800',
    'npm test 2>',
    '>',
    '< <',
    ')(',
    '!',
    'time',
    'timeout 5',
    'bash -c',
    'env',
    '{a}>x npm test',
  ])('%j', (command) => {
    const c = classify(command);
    expect(c.heavy).toBe(false);
    expect(typeof c.rule).toBe('string');
  });
  it('deep nesting is "cannot parse", not a crash', () => {
    expect(classify('"$('.repeat(20_000))).toMatchObject({ heavy: false, rule: 'local: cannot parse (nested too deep)' });
    expect(classify(`npm test && ${'(cd a && '.repeat(6000)}make${')'.repeat(6000)}`)).toMatchObject({
      heavy: false,
      rule: 'local: cannot parse (nested too deep)',
    });
  });
  it('non-string input and odd rules', () => {
    expect(classify(undefined as unknown as string).heavy).toBe(false);
    expect(classify('npm test', { heavy: [''], local: ['  '] }).heavy).toBe(true);
  });
});

describe('rewriteCommand', () => {
  it('names sparehand with any shell-ready invocation', () => {
    const c = classify('cd pkg && CI=1 npm test > /tmp/x.log 2>&1 &');
    expect(rewriteCommand(c, "'/usr/bin/node' '/opt/sh/bin/sparehand.js'")).toBe(
      "cd pkg && '/usr/bin/node' '/opt/sh/bin/sparehand.js' run --or-local -- 'CI=1 npm test 2>&1' > /tmp/x.log &",
    );
  });
  it('refuses a command that is not heavy', () => {
    expect(() => rewriteCommand(classify('ls'), 'sparehand')).toThrow(/not heavy/);
  });
});
