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
{{- if and .Values.ingress.enabled (not .Values.services.gateway.enabled) -}}
{{- fail "ingress.enabled needs services.gateway.enabled" -}}
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
{{- $_ := set $env "KAFKA_BROKERS" (include "assay.kafkaBrokers" $root) -}}
{{- end -}}
{{- if $v.redis.existingSecret -}}
{{- $_ := set $env "REDIS_URL" (dict "valueFrom" (dict "secretKeyRef" (dict "name" $v.redis.existingSecret "key" ($v.redis.key | default "REDIS_URL")))) -}}
{{- else if $v.redis.url -}}
{{- $_ := set $env "REDIS_URL" (dict "valueFrom" (dict "secretKeyRef" (dict "name" (include "assay.connectionSecretName" $root) "key" "REDIS_URL"))) -}}
{{- end -}}
{{- $_ := set $env "INTERNAL_TOKEN_SECRET" (dict "valueFrom" (dict "secretKeyRef" (dict "name" (include "assay.tokensSecretName" $root) "key" "INTERNAL_TOKEN_SECRET"))) -}}
{{- if eq $name "auth" -}}
{{- $_ := set $env "SESSION_TOKEN_SECRET" (dict "valueFrom" (dict "secretKeyRef" (dict "name" (include "assay.tokensSecretName" $root) "key" "SESSION_TOKEN_SECRET"))) -}}
{{- end -}}
{{- with include "assay.publicBaseUrl" $root -}}
{{- $_ := set $env "PUBLIC_BASE_URL" . -}}
{{- end -}}
{{- if $svc.chromium -}}
{{- $_ := set $env "CHROMIUM_PATH" "/usr/bin/chromium" -}}
{{- end -}}
{{- if eq $name "execution-runner" -}}
{{- $_ := set $env "RUNNER_CONCURRENCY" (toString ($svc.concurrency | default 2)) -}}
{{- end -}}
{{- if eq $name "discovery-crawler" -}}
{{- $_ := set $env "CRAWLER_SESSIONS" (toString ($svc.concurrency | default 2)) -}}
{{- end -}}
{{- if eq $name "webhook-dispatcher" -}}
{{- $_ := set $env "WEBHOOK_SECRET_KEY" (dict "valueFrom" (dict "secretKeyRef" (dict "name" (include "assay.tokensSecretName" $root) "key" "WEBHOOK_SECRET_KEY"))) -}}
{{- $_ := set $env "WEBHOOK_CONCURRENCY" (toString ($svc.concurrency | default 64)) -}}
{{- end -}}
{{- /* <SERVICE>_URL of every other enabled service; a disabled one gets none (the gateway answers 501 for its routes). */ -}}
{{- range $other := splitList " " (include "assay.serviceNames" $root) -}}
{{- if and (ne $other $name) (ne $other "gateway") (dig $other "enabled" false $v.services) -}}
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
