import { describe, expect, it } from 'vitest';
import { programsOf } from '../../lib/classify/programs.js';

describe('the programs a command starts', () => {
  it("each simple command's program, through wrappers, subshells and chains; a launcher's command is its own business", () => {
    expect(programsOf('cd pkg && CI=1 timeout 600 cargo test -- --nocapture 2>&1 | tail -50; (make -C x)')).toEqual(['cd', 'timeout', 'cargo', 'tail', 'make']);
    expect(programsOf('env -i FOO=1 nice -n 5 ./gradlew test && .venv/bin/python -m pytest')).toEqual(['env', 'nice', './gradlew', '.venv/bin/python']);
    expect(programsOf('uv run pytest -q && bundle exec rspec && poetry run mypy .')).toEqual(['uv', 'bundle', 'poetry']);
  });

  it('a name the text does not give literally is not guessed; what cannot be parsed gives nothing', () => {
    expect(programsOf('$RUNNER test && "$(which jest)" --ci && npm test')).toEqual(['npm']);
    expect(programsOf('if true; then npm test; fi')).toEqual([]);
  });
});
