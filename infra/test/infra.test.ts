import t from 'tap';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigSchema } from '../../apps/api/src/config.ts';
import { WorkerSettingsSchema } from '../../packages/worker/src/runtime.ts';
import { ALLOCATOR_ENV, API_NODE_FLAGS } from '../../scripts/allocator-env.ts';
import { SERVER_FLAGS } from '../../packages/db/src/embedded.ts';

const WORKER_ENV = Object.keys(WorkerSettingsSchema.properties);

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');
const API_ENV = new Set(Object.keys(ConfigSchema.properties));
const ALL_ENV = new Set([...API_ENV, ...WORKER_ENV, 'MIGRATIONS_DIR']);
const APPS = ['api', 'dish-worker', 'product-worker'] as const;

t.test(
  'each Dockerfile: multi-stage Node 24 slim, pnpm deploy of its app, non-root, an entry that exists',
  async (t) => {
    for (const app of APPS) {
      const file = read(`infra/${app}.Dockerfile`);
      t.match(file, /ARG NODE_IMAGE=node:24-slim/, app);
      t.equal(file.match(/^FROM /gm)?.length, 2, `${app} has a build and a final stage`);
      t.match(file, new RegExp(`pnpm --filter @nutrition/${app} deploy --legacy --prod /out`));
      t.match(file, /^USER node$/m, 'runs as the non-root node user');
      const env = Object.fromEntries(
        [...file.matchAll(/^ENV (.+)$/gm)].flatMap(([, line]) => line!.split(' ').map((pair) => pair.split('='))),
      );
      for (const [name, value] of Object.entries(ALLOCATOR_ENV))
        t.equal(env[name], value, `${app} runs with ${name}=${value}, as pnpm start and the bench do`);
      t.match(file, /HEALTHCHECK .*\n.*\/health/);
      const [node, ...args] = JSON.parse(/^CMD (.+)$/m.exec(file)![1]!) as string[];
      const entry = args.pop();
      t.equal(node, 'node');
      t.ok(existsSync(`${root}apps/${app}/${entry}`), `${app} runs ${entry}`);
      const flags = app === 'api' ? API_NODE_FLAGS : [];
      t.same(args, flags, `${app} runs with the Node flags pnpm start and the bench use`);
      const { scripts } = JSON.parse(read(`apps/${app}/package.json`)) as { scripts: { start: string } };
      t.equal(scripts.start, ['node', ...flags, entry].join(' '), `${app}'s own start script runs it the same way`);
      const install = file.indexOf('pnpm install --frozen-lockfile');
      t.ok(
        file.indexOf('COPY patches patches') > 0 && file.indexOf('COPY patches patches') < install,
        `${app} has the patched dependencies before installing`,
      );
      for (const [, path] of file.matchAll(/^COPY (?!--)(\S+)/gm)) {
        t.ok(existsSync(`${root}${path}`), `${app} copies ${path}`);
      }
    }
  },
);

t.test(
  'compose: PostgreSQL 18 with a volume and health check, migration first, apps wired by environment',
  async (t) => {
    const compose = parse(read('docker-compose.yml'), { merge: true });
    const s = compose.services;
    t.same(Object.keys(s).sort(), ['api', 'dish-worker', 'migrate', 'postgres', 'product-worker']);
    t.match(s.postgres.image, /^postgres:18/);
    t.same(
      s.postgres.command,
      ['postgres', ...SERVER_FLAGS],
      'the server gets the settings the embedded one runs with',
    );
    t.ok(s.postgres.healthcheck.test);
    t.ok(s.postgres.volumes.some((v: string) => v.startsWith('pgdata:')));
    t.ok(compose.volumes.pgdata !== undefined);
    t.same(s.migrate.depends_on.postgres, { condition: 'service_healthy' });
    t.same(s.migrate.command, ['node', 'src/migrate.ts']);
    t.ok(existsSync(`${root}apps/api/src/migrate.ts`));
    for (const app of APPS) {
      const service = s[app];
      t.same(
        service.depends_on.migrate,
        { condition: 'service_completed_successfully' },
        `${app} waits for the migration`,
      );
      t.match(String(service.deploy.replicas), /\$\{[A-Z_]+_REPLICAS:-\d+\}/, `${app} replicas are adjustable`);
      const image = service.image as string;
      t.equal(image, `nutrition/${app}:latest`);
      const allowed = app === 'api' ? API_ENV : new Set(WORKER_ENV);
      for (const name of Object.keys(service.environment))
        t.ok(allowed.has(name), `${app}: ${name} is a variable the app reads`);
      t.ok(service.environment.DATABASE_URL.includes('@postgres:5432/'), `${app} reaches the postgres service`);
    }
    t.equal(s.migrate.build.dockerfile, 'infra/api.Dockerfile');
    for (const app of ['dish-worker', 'product-worker']) t.ok(existsSync(`${root}${s[app].build.dockerfile}`));
  },
);

t.test(
  'Kubernetes manifests: deployments with probes and requests, a job, a service, an HPA, config and secret',
  async (t) => {
    const docs = readdirSync(`${root}infra/k8s`)
      .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
      .flatMap((f) => parseAllDocuments(read(`infra/k8s/${f}`)).map((d) => d.toJS()));
    const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
    const kustomization = parse(read('infra/k8s/kustomization.yaml'));
    for (const file of kustomization.resources)
      t.ok(existsSync(`${root}infra/k8s/${file}`), `kustomization lists ${file}`);

    const config = find('ConfigMap', 'nutrition-config');
    const secret = find('Secret', 'nutrition-secrets');
    for (const key of [...Object.keys(config.data), ...Object.keys(secret.stringData)])
      t.ok(ALL_ENV.has(key), `${key} is a known variable`);

    for (const app of APPS) {
      const deployment = find('Deployment', `nutrition-${app}`);
      t.ok(deployment, `${app} deployment`);
      const pod = deployment.spec.template;
      t.same(deployment.spec.selector.matchLabels, { 'app.kubernetes.io/name': app });
      t.equal(pod.metadata.labels['app.kubernetes.io/name'], app);
      const container = pod.spec.containers[0];
      t.equal(container.image, `nutrition/${app}:latest`);
      t.ok(container.resources.requests.cpu && container.resources.requests.memory, `${app} requests resources`);
      t.ok(pod.spec.securityContext.runAsNonRoot);
      const expected =
        app === 'api' ? { live: '/health/live', ready: '/ready' } : { live: '/health/live', ready: '/health' };
      t.equal(container.livenessProbe.httpGet.path, expected.live);
      t.equal(container.readinessProbe.httpGet.path, expected.ready);
      const port = container.ports.find((p: { name: string }) => p.name === container.livenessProbe.httpGet.port);
      t.ok(port, `${app} probes a declared port`);
      for (const env of container.env ?? []) t.ok(ALL_ENV.has(env.name), `${app}: ${env.name}`);
      t.same(
        container.envFrom.map((e: Record<string, { name: string }>) => Object.values(e)[0]!.name),
        ['nutrition-config', 'nutrition-secrets'],
      );
    }
    const service = find('Service', 'nutrition-api');
    t.same(service.spec.selector, { 'app.kubernetes.io/name': 'api' });
    t.equal(service.spec.ports[0].targetPort, 'http');
    const hpa = find('HorizontalPodAutoscaler', 'nutrition-api');
    t.same(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nutrition-api' });
    const job = find('Job', 'nutrition-migrate');
    t.same(job.spec.template.spec.containers[0].command, ['node', 'src/migrate.ts']);
    t.equal(job.spec.template.spec.restartPolicy, 'Never');
  },
);
