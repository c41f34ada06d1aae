{{/*
The seven services in a fixed order (Go templates range over maps in key
order, which is fine for rendering but this list also defines which services
the chart knows).
*/}}
{{- define "assay.serviceNames" -}}
gateway auth test-case execution-runner discovery-crawler analysis webhook-dispatcher
{{- end -}}

{{/* Chart name, overridable with nameOverride. */}}
{{- define "assay.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Release-wide name prefix. A release named "assay" gives "assay", a release
named "prod" gives "prod-assay".
*/}}
{{- define "assay.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "assay.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object. */}}
{{- define "assay.labels" -}}
helm.sh/chart: {{ include "assay.chart" . }}
app.kubernetes.io/name: {{ include "assay.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: assay
{{- end -}}

{{/*
Per-service helpers take a dict: (dict "root" $ "name" "auth").
*/}}

{{/* Object name of one service's Deployment, Service, HPA, PDB. */}}
{{- define "assay.componentName" -}}
{{- printf "%s-%s" (include "assay.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "assay.componentSelectorLabels" -}}
app.kubernetes.io/name: {{ include "assay.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "assay.componentLabels" -}}
{{ include "assay.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* In-cluster base URL of a service, e.g. http://assay-auth.default.svc.cluster.local:8081 */}}
{{- define "assay.componentUrl" -}}
{{- $svc := index .root.Values.services .name -}}
{{- printf "http://%s.%s.svc.%s:%v" (include "assay.componentName" .) .root.Release.Namespace .root.Values.clusterDomain $svc.port -}}
{{- end -}}

{{/* "test-case" -> "TEST_CASE_URL" */}}
{{- define "assay.urlEnvName" -}}
{{- printf "%s_URL" (.name | upper | replace "-" "_") -}}
{{- end -}}

{{/*
Image of one service: services.<name>.image.{repository,tag} win; otherwise
image.repository with image.tag (default: the chart's appVersion), plus
image.chromiumTagSuffix for services with chromium: true.
*/}}
{{- define "assay.componentImage" -}}
{{- $svc := index .root.Values.services .name -}}
{{- $img := .root.Values.image -}}
{{- $own := $svc.image | default dict -}}
{{- $repository := $own.repository | default $img.repository -}}
{{- $tag := $own.tag -}}
{{- if not $tag -}}
{{- $tag = printf "%s" ($img.tag | default .root.Chart.AppVersion) -}}
{{- if $svc.chromium -}}
{{- $tag = printf "%s%s" $tag ($img.chromiumTagSuffix | default "") -}}
{{- end -}}
{{- end -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}

{{/* Name of the Secret holding INTERNAL_TOKEN_SECRET, SESSION_TOKEN_SECRET and WEBHOOK_SECRET_KEY. */}}
{{- define "assay.tokensSecretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else -}}
{{- printf "%s-tokens" (include "assay.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Name of the chart-rendered Secret holding DATABASE_URL / REDIS_URL given as values. */}}
{{- define "assay.connectionSecretName" -}}
{{- printf "%s-connection" (include "assay.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* True ("true") when the chart renders the connection Secret. */}}
{{- define "assay.needsConnectionSecret" -}}
{{- if or (not .Values.externalDatabase.existingSecret) (and .Values.redis.url (not .Values.redis.existingSecret)) -}}
true
{{- end -}}
{{- end -}}

{{- define "assay.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "assay.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Changes when a value that ends up in the tokens Secret changes (the Secret's generated values never change). */}}
{{- define "assay.tokensChecksum" -}}
{{- $s := .Values.secrets -}}
{{- list $s.existingSecret $s.internalTokenSecret $s.sessionTokenSecret $s.webhookSecretKey $s.stripeWebhookSecret $s.analysisLlmApiKey $s.smtpUrl | toJson | sha256sum -}}
{{- end -}}

{{/* An integer as text, never in e-notation (values files give numbers as float64). */}}
{{- define "assay.int" -}}
{{- . | int64 | toString -}}
{{- end -}}

{{/* {valueFrom: {secretKeyRef}} of one key of the tokens Secret; optional keys may be missing from it. */}}
{{- define "assay.secretRef" -}}
{{- $ref := dict "name" (include "assay.tokensSecretName" .root) "key" .key -}}
{{- if .optional -}}
{{- $_ := set $ref "optional" true -}}
{{- end -}}
{{- toYaml (dict "valueFrom" (dict "secretKeyRef" $ref)) -}}
{{- end -}}

{{/* SHUTDOWN_GRACE_SECONDS of the runner. */}}
{{- define "assay.runnerGrace" -}}
{{- $svc := index .Values.services "execution-runner" -}}
{{- hasKey $svc "shutdownGraceSeconds" | ternary $svc.shutdownGraceSeconds 3600 | int64 -}}
{{- end -}}

{{/* terminationGracePeriodSeconds of one service: the runner's covers its drain. */}}
{{- define "assay.terminationGrace" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if eq .name "execution-runner" -}}
{{- $grace := include "assay.runnerGrace" .root | int64 -}}
{{- $svc.terminationGracePeriodSeconds | default (add $grace 30) | int64 -}}
{{- else -}}
{{- $svc.terminationGracePeriodSeconds | default 30 | int64 -}}
{{- end -}}
{{- end -}}

{{/* Services each service calls (its <SERVICE>_URL clients); NetworkPolicies open exactly these pairs. */}}
{{- define "assay.callees" -}}
{{- $calls := dict
  "gateway" (list "auth" "test-case" "execution-runner" "discovery-crawler" "analysis" "webhook-dispatcher")
  "auth" (list)
  "test-case" (list)
  "execution-runner" (list "test-case" "auth" "discovery-crawler")
  "discovery-crawler" (list "test-case")
  "analysis" (list "execution-runner" "test-case" "discovery-crawler")
  "webhook-dispatcher" (list "auth")
-}}
{{- index $calls .name | join " " -}}
{{- end -}}

{{/* KAFKA_BROKERS as one comma-separated string (values may give a list or a string). */}}
{{- define "assay.kafkaBrokers" -}}
{{- $b := .Values.bus.kafka.brokers -}}
{{- if kindIs "slice" $b -}}
{{- join "," $b -}}
{{- else -}}
{{- $b | default "" -}}
{{- end -}}
{{- end -}}

{{/*
PUBLIC_BASE_URL: publicBaseUrl, else the first Ingress host (https when that
host is listed under ingress.tls), else empty (the service's own default).
*/}}
{{- define "assay.publicBaseUrl" -}}
{{- if .Values.publicBaseUrl -}}
{{- .Values.publicBaseUrl | trimSuffix "/" -}}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts -}}
{{- $host := (first .Values.ingress.hosts).host -}}
{{- $https := false -}}
{{- range .Values.ingress.tls -}}
{{- if has $host (.hosts | default list) -}}
{{- $https = true -}}
{{- end -}}
{{- end -}}
{{- printf "%s://%s" (ternary "https" "http" $https) $host -}}
{{- end -}}
{{- end -}}

{{/*
Renders an env map: a string/number/bool value becomes `value:`, a map is
taken as the rest of the EnvVar (e.g. valueFrom). Keys are sorted.
*/}}
{{- define "assay.envMap" -}}
{{- range $k, $v := . }}
- name: {{ $k }}
{{- if kindIs "map" $v }}
{{- toYaml $v | nindent 2 }}
{{- else }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Checks values that a JSON schema cannot express; called once from the
Deployment template.
*/}}
{{- define "assay.validate" -}}
{{- $known := splitList " " (include "assay.serviceNames" .) -}}
{{- range $name, $svc := .Values.services -}}
{{- if not (has $name $known) -}}
{{- fail (printf "services.%s: unknown service (known: %s)" $name (join ", " $known)) -}}
{{- end -}}
{{- end -}}
{{- if not (or .Values.externalDatabase.url .Values.externalDatabase.existingSecret) -}}
{{- fail "set externalDatabase.url or externalDatabase.existingSecret: every service needs DATABASE_URL (a PostgreSQL URL)" -}}
{{- end -}}
{{- if not (has .Values.bus.kind (list "kafka" "pg")) -}}
{{- fail (printf "bus.kind must be kafka or pg (got %q)" (toString .Values.bus.kind)) -}}
{{- end -}}
{{- if and (eq .Values.bus.kind "kafka") (not (include "assay.kafkaBrokers" .)) -}}
{{- fail "bus.kind is kafka: set bus.kafka.brokers (host:port list), or use bus.kind: pg" -}}
{{- end -}}
{{- if and .Values.services.gateway.enabled (not .Values.services.auth.enabled) -}}
{{- fail "services.gateway.enabled needs services.auth.enabled: the gateway authenticates every call through auth (AUTH_URL is required)" -}}
{{- end -}}
{{- range $name, $needs := dict "execution-runner" (list "test-case") "discovery-crawler" (list "test-case") "analysis" (list "execution-runner" "test-case") -}}
{{- if dig $name "enabled" false $.Values.services -}}
{{- range $need := $needs -}}
{{- if not (dig $need "enabled" false $.Values.services) -}}
{{- fail (printf "services.%s.enabled needs services.%s.enabled (it calls %s)" $name $need $need) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and .Values.ingress.enabled (not .Values.services.gateway.enabled) -}}
{{- fail "ingress.enabled needs services.gateway.enabled" -}}
{{- end -}}
{{- if not (has .Values.migrations.mode (list "job" "start")) -}}
{{- fail (printf "migrations.mode must be job or start (got %q)" (toString .Values.migrations.mode)) -}}
{{- end -}}
{{- $runner := index .Values.services "execution-runner" -}}
{{- if and $runner.enabled $runner.terminationGracePeriodSeconds -}}
{{- if lt (int64 $runner.terminationGracePeriodSeconds) (add (include "assay.runnerGrace" . | int64) 10) -}}
{{- fail (printf "services.execution-runner.terminationGracePeriodSeconds (%v) must be at least shutdownGraceSeconds + 10 (%v): the pod would be killed mid-drain" $runner.terminationGracePeriodSeconds (add (include "assay.runnerGrace" . | int64) 10)) -}}
{{- end -}}
{{- end -}}
{{- if .Values.keda.enabled -}}
{{- range $name := list "execution-runner" "discovery-crawler" -}}
{{- $svc := index $.Values.services $name -}}
{{- if and $svc.enabled (dig "autoscaling" "enabled" false $svc) -}}
{{- fail (printf "services.%s.autoscaling.enabled and keda.enabled: KEDA makes its own HPA for %s, and two autoscalers on one Deployment fight; turn one off" $name $name) -}}
{{- end -}}
{{- end -}}
{{- $kr := index .Values.keda "execution-runner" -}}
{{- if and (eq .Values.bus.kind "kafka") (gt (int64 $kr.maxReplicaCount) (int64 .Values.bus.kafka.partitions)) -}}
{{- fail (printf "keda.execution-runner.maxReplicaCount (%v) is above bus.kafka.partitions (%v): replicas past the partition count get no work" $kr.maxReplicaCount .Values.bus.kafka.partitions) -}}
{{- end -}}
{{- end -}}
{{- if and $runner.enabled (dig "autoscaling" "enabled" false $runner) (eq .Values.bus.kind "kafka") -}}
{{- if gt (int64 $runner.autoscaling.maxReplicas) (int64 .Values.bus.kafka.partitions) -}}
{{- fail (printf "services.execution-runner.autoscaling.maxReplicas (%v) is above bus.kafka.partitions (%v): replicas past the partition count get no work" $runner.autoscaling.maxReplicas .Values.bus.kafka.partitions) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.secrets.smtpUrl (not .Values.services.auth.enabled) -}}
{{- fail "secrets.smtpUrl needs services.auth.enabled: the webhook-dispatcher asks auth whom to e-mail" -}}
{{- end -}}
{{- range $name, $svc := .Values.services -}}
{{- if and $svc.enabled (dig "autoscaling" "enabled" false $svc) -}}
{{- if not (dig "resources" "requests" "cpu" "" $svc) -}}
{{- fail (printf "services.%s.autoscaling needs services.%s.resources.requests.cpu (the HPA targets CPU utilization of the request)" $name $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The environment of one service as a YAML map NAME: value | {valueFrom: ...}.
Layers, each overriding the one before by name (so no variable is listed
twice): the chart's own variables, then values `env`, then services.<name>.env.
*/}}
{{- define "assay.componentEnv" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $v := $root.Values -}}
{{- $svc := index $v.services $name -}}
{{- $env := dict
  "SERVICE" $name
  "HOST" "0.0.0.0"
  "PORT" (toString $svc.port)
  "LOG_LEVEL" $v.logLevel
  "BUS" $v.bus.kind
-}}
{{- if $v.externalDatabase.existingSecret -}}
{{- $_ := set $env "DATABASE_URL" (dict "valueFrom" (dict "secretKeyRef" (dict "name" $v.externalDatabase.existingSecret "key" ($v.externalDatabase.key | default "DATABASE_URL")))) -}}
{{- else -}}
{{- $_ := set $env "DATABASE_URL" (dict "valueFrom" (dict "secretKeyRef" (dict "name" (include "assay.connectionSecretName" $root) "key" "DATABASE_URL"))) -}}
{{- end -}}
{{- if eq $v.bus.kind "kafka" -}}
{{- $k := $v.bus.kafka -}}
{{- $_ := set $env "KAFKA_BROKERS" (include "assay.kafkaBrokers" $root) -}}
{{- $_ := set $env "KAFKA_PARTITIONS" (include "assay.int" $k.partitions) -}}
{{- $_ := set $env "KAFKA_REPLICATION_FACTOR" (include "assay.int" $k.replicationFactor) -}}
{{- $_ := set $env "KAFKA_MIN_INSYNC_REPLICAS" (include "assay.int" $k.minInsyncReplicas) -}}
{{- $_ := set $env "KAFKA_PROVISION_TOPICS" (ternary "true" "false" (ne $k.provisionTopics false)) -}}
{{- $_ := set $env "KAFKA_SESSION_TIMEOUT_MS" (include "assay.int" ($k.sessionTimeoutMs | default 30000)) -}}
{{- with $k.retryDelays -}}
{{- $_ := set $env "KAFKA_RETRY_DELAYS" . -}}
{{- end -}}
{{- $tls := $k.tls | default dict -}}
{{- if $tls.enabled -}}
{{- $_ := set $env "KAFKA_TLS" "true" -}}
{{- if and $tls.existingSecret $tls.caKey -}}
{{- $_ := set $env "KAFKA_TLS_CA_FILE" (printf "/etc/assay/kafka-tls/%s" $tls.caKey) -}}
{{- end -}}
{{- if and $tls.existingSecret $tls.certKey $tls.keyKey -}}
{{- $_ := set $env "KAFKA_TLS_CERT_FILE" (printf "/etc/assay/kafka-tls/%s" $tls.certKey) -}}
{{- $_ := set $env "KAFKA_TLS_KEY_FILE" (printf "/etc/assay/kafka-tls/%s" $tls.keyKey) -}}
{{- end -}}
{{- with $tls.serverName -}}
{{- $_ := set $env "KAFKA_TLS_SERVERNAME" . -}}
{{- end -}}
{{- end -}}
{{- $sasl := $k.sasl | default dict -}}
{{- with $sasl.mechanism -}}
{{- $_ := set $env "KAFKA_SASL_MECHANISM" . -}}
{{- if eq . "oauthbearer" -}}
{{- $o := $sasl.oauthbearer | default dict -}}
{{- with $o.tokenFile -}}
{{- $_ := set $env "KAFKA_SASL_OAUTHBEARER_TOKEN_FILE" . -}}
{{- end -}}
{{- with $o.provider -}}
{{- $_ := set $env "KAFKA_SASL_OAUTHBEARER_PROVIDER" . -}}
{{- end -}}
{{- else -}}
{{- $_ := set $env "KAFKA_SASL_USERNAME" (dict "valueFrom" (dict "secretKeyRef" (dict "name" $sasl.existingSecret "key" ($sasl.usernameKey | default "username")))) -}}
{{- $_ := set $env "KAFKA_SASL_PASSWORD" (dict "valueFrom" (dict "secretKeyRef" (dict "name" $sasl.existingSecret "key" ($sasl.passwordKey | default "password")))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if eq $name "gateway" -}}
{{- if $v.redis.existingSecret -}}
{{- $_ := set $env "REDIS_URL" (dict "valueFrom" (dict "secretKeyRef" (dict "name" $v.redis.existingSecret "key" ($v.redis.key | default "REDIS_URL")))) -}}
{{- else if $v.redis.url -}}
{{- $_ := set $env "REDIS_URL" (dict "valueFrom" (dict "secretKeyRef" (dict "name" (include "assay.connectionSecretName" $root) "key" "REDIS_URL"))) -}}
{{- end -}}
{{- $_ := set $env "RATE_LIMITS_ENABLED" (toString (ne $svc.rateLimitsEnabled false)) -}}
{{- with $svc.upstreamResponseTimeoutMs -}}
{{- $_ := set $env "UPSTREAM_RESPONSE_TIMEOUT_MS" (include "assay.int" .) -}}
{{- end -}}
{{- end -}}
{{- with $v.otel.endpoint -}}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" . -}}
{{- $_ := set $env "OTEL_SERVICE_NAME" (printf "assay-%s" $name) -}}
{{- end -}}
{{- if and (eq $v.migrations.mode "job") (ne $name "gateway") -}}
{{- /* The pre-install/pre-upgrade Job migrated the schema; start refuses one with pending migrations. */ -}}
{{- $_ := set $env "MIGRATE_AT_START" "false" -}}
{{- end -}}
{{- $_ := set $env "INTERNAL_TOKEN_SECRET" (include "assay.secretRef" (dict "root" $root "key" "INTERNAL_TOKEN_SECRET") | fromYaml) -}}
{{- if eq $name "auth" -}}
{{- $_ := set $env "SESSION_TOKEN_SECRET" (include "assay.secretRef" (dict "root" $root "key" "SESSION_TOKEN_SECRET") | fromYaml) -}}
{{- $_ := set $env "STRIPE_WEBHOOK_SECRET" (include "assay.secretRef" (dict "root" $root "key" "STRIPE_WEBHOOK_SECRET" "optional" true) | fromYaml) -}}
{{- with $svc.sessionTtlSeconds -}}
{{- $_ := set $env "SESSION_TTL_SECONDS" (include "assay.int" .) -}}
{{- end -}}
{{- end -}}
{{- with include "assay.publicBaseUrl" $root -}}
{{- $_ := set $env "PUBLIC_BASE_URL" . -}}
{{- end -}}
{{- if $svc.chromium -}}
{{- /* The -chromium image ships Debian's chromium-headless-shell. */ -}}
{{- $_ := set $env "CHROMIUM_PATH" "/usr/bin/chromium-headless-shell" -}}
{{- end -}}
{{- if has $name (list "execution-runner" "discovery-crawler" "analysis" "webhook-dispatcher") -}}
{{- /* libs/egress: loopback is the pod itself, never a customer's target. */ -}}
{{- $_ := set $env "EGRESS_ALLOW_LOOPBACK" "false" -}}
{{- $_ := set $env "EGRESS_ALLOW_PRIVATE" (toString (eq $v.egress.allowPrivate true)) -}}
{{- $_ := set $env "EGRESS_ALLOW_CIDRS" (join "," ($v.egress.allowCidrs | default list)) -}}
{{- $_ := set $env "EGRESS_DENY_CIDRS" (join "," ($v.egress.denyCidrs | default list)) -}}
{{- end -}}
{{- if eq $name "execution-runner" -}}
{{- $_ := set $env "RUNNER_CONCURRENCY" (include "assay.int" ($svc.concurrency | default 2)) -}}
{{- $_ := set $env "SHUTDOWN_GRACE_SECONDS" (include "assay.int" (include "assay.runnerGrace" $root)) -}}
{{- /* The runner's pods are not root and cannot make the box suite shards run in: suiteShards' pods take them, and list uploads (stored as `listing`). */ -}}
{{- $_ := set $env "SUITE_SHARDS_ENABLED" "false" -}}
{{- $_ := set $env "SUITE_LIST_ON_UPLOAD" "false" -}}
{{- $sched := $svc.scheduler | default dict -}}
{{- $_ := set $env "SCHEDULER_ENABLED" (toString (ne $sched.enabled false)) -}}
{{- with $sched.intervalMs -}}
{{- $_ := set $env "SCHEDULER_INTERVAL_MS" (include "assay.int" .) -}}
{{- end -}}
{{- $art := $svc.artifacts | default dict -}}
{{- with $art.maxBytes -}}
{{- $_ := set $env "ARTIFACT_MAX_BYTES" (include "assay.int" .) -}}
{{- end -}}
{{- with $art.orgQuotaBytes -}}
{{- $_ := set $env "ARTIFACT_ORG_QUOTA_BYTES" (include "assay.int" .) -}}
{{- end -}}
{{- end -}}
{{- if eq $name "discovery-crawler" -}}
{{- $_ := set $env "CRAWLER_SESSIONS" (include "assay.int" ($svc.concurrency | default 2)) -}}
{{- end -}}
{{- if eq $name "analysis" -}}
{{- $_ := set $env "ANALYSIS_CONCURRENCY" (include "assay.int" ($svc.concurrency | default 1)) -}}
{{- $_ := set $env "ANALYSIS_RERUN_ENABLED" (toString (ne $svc.rerunEnabled false)) -}}
{{- if hasKey $svc "maxRerunsPerExecution" -}}
{{- $_ := set $env "ANALYSIS_MAX_RERUNS" (include "assay.int" $svc.maxRerunsPerExecution) -}}
{{- end -}}
{{- $llm := $svc.llm | default dict -}}
{{- if $llm.url -}}
{{- $_ := set $env "ANALYSIS_LLM_URL" $llm.url -}}
{{- $_ := set $env "ANALYSIS_LLM_MODEL" $llm.model -}}
{{- end -}}
{{- $_ := set $env "ANALYSIS_LLM_API_KEY" (include "assay.secretRef" (dict "root" $root "key" "ANALYSIS_LLM_API_KEY" "optional" true) | fromYaml) -}}
{{- end -}}
{{- if eq $name "test-case" -}}
{{- $_ := set $env "SECRETS_KEY" (include "assay.secretRef" (dict "root" $root "key" "SECRETS_KEY" "optional" true) | fromYaml) -}}
{{- end -}}
{{- if eq $name "webhook-dispatcher" -}}
{{- $_ := set $env "WEBHOOK_SECRET_KEY" (include "assay.secretRef" (dict "root" $root "key" "WEBHOOK_SECRET_KEY") | fromYaml) -}}
{{- $_ := set $env "WEBHOOK_CONCURRENCY" (include "assay.int" ($svc.concurrency | default 64)) -}}
{{- $_ := set $env "SMTP_URL" (include "assay.secretRef" (dict "root" $root "key" "SMTP_URL" "optional" true) | fromYaml) -}}
{{- with $svc.smtpFrom -}}
{{- $_ := set $env "SMTP_FROM" . -}}
{{- end -}}
{{- end -}}
{{- /* <SERVICE>_URL of each enabled service it calls (assay.callees); the gateway answers 501 for a disabled one. */ -}}
{{- range $other := splitList " " (include "assay.callees" (dict "name" $name)) -}}
{{- if and $other (dig $other "enabled" false $v.services) -}}
{{- $_ := set $env (include "assay.urlEnvName" (dict "name" $other)) (include "assay.componentUrl" (dict "root" $root "name" $other)) -}}
{{- end -}}
{{- end -}}
{{- range $k, $x := ($v.env | default dict) -}}
{{- $_ := set $env $k $x -}}
{{- end -}}
{{- range $k, $x := ($svc.env | default dict) -}}
{{- $_ := set $env $k $x -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/* Egress rules of every pod: DNS (networkPolicy.dns) and the backends (PostgreSQL, Kafka, Redis). */}}
{{- define "assay.baseEgress" -}}
{{- $v := .Values -}}
# DNS
- to:
    {{- toYaml $v.networkPolicy.dns | nindent 4 }}
  ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
# PostgreSQL, Kafka, Redis
- ports:
    {{- range $port := $v.networkPolicy.backends.ports }}
    - port: {{ $port | int64 }}
      protocol: TCP
    {{- end }}
  {{- with $v.networkPolicy.backends.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{/*
Egress rule of the pods that fetch customers' URLs: the internet less
link-local (cloud metadata) and, unless egress.allowPrivate, the private
ranges; egress.denyCidrs added to the exceptions, egress.allowCidrs opened.
*/}}
{{- define "assay.internetEgress" -}}
{{- $v := .Values -}}
{{- $deny4 := list "169.254.0.0/16" -}}
{{- $deny6 := list "fe80::/10" -}}
{{- if not $v.egress.allowPrivate -}}
{{- $deny4 = concat $deny4 (list "10.0.0.0/8" "172.16.0.0/12" "192.168.0.0/16" "100.64.0.0/10") -}}
{{- $deny6 = append $deny6 "fc00::/7" -}}
{{- end -}}
{{- range $cidr := ($v.egress.denyCidrs | default list) -}}
{{- if contains ":" $cidr -}}
{{- $deny6 = append $deny6 $cidr -}}
{{- else -}}
{{- $deny4 = append $deny4 $cidr -}}
{{- end -}}
{{- end -}}
# Customers' targets: the internet, not link-local (cloud metadata){{ if not $v.egress.allowPrivate }} nor the private ranges{{ end }}.
- to:
    - ipBlock:
        cidr: 0.0.0.0/0
        except:
          {{- toYaml $deny4 | nindent 10 }}
    - ipBlock:
        cidr: ::/0
        except:
          {{- toYaml $deny6 | nindent 10 }}
    {{- range $cidr := ($v.egress.allowCidrs | default list) }}
    - ipBlock:
        cidr: {{ $cidr }}
    {{- end }}
{{- end -}}
