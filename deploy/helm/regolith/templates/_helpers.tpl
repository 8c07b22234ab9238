{{/*
Named templates of the Regolith chart. The chart's templates use only a small subset of
Helm's template language (if/else, range over a map, include, toYaml, nindent, quote,
default, b64enc, printf, trunc, trimSuffix, required, eq, ne, not, or, add, dict, sha256sum), which
test/deploy/render.ts implements to render the chart in the tests.
*/}}

{{/* The release's resource name prefix: <release>-<chart>, at most 63 characters. */}}
{{- define "regolith.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- define "regolith.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "regolith.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The Secret mounted at /secrets: existingSecret, or the one secret.yaml renders. */}}
{{- define "regolith.secretName" -}}
{{- if .Values.existingSecret }}
{{- .Values.existingSecret }}
{{- else }}
{{- include "regolith.fullname" . }}-secrets
{{- end }}
{{- end }}

{{- define "regolith.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
The Regolith container. Its context is a dict: Values, Release, Chart as usual, Host (the
decision API's listening host) and Name (the container's name).
*/}}
{{- define "regolith.container" -}}
- name: {{ .Name }}
  image: {{ include "regolith.image" . | quote }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    - run
    - --server
    - {{ printf "--addr=%s:%v" .Host .Values.server.port | quote }}
    {{- if .Values.server.diagnosticPort }}
    - {{ printf "--diagnostic-addr=0.0.0.0:%v" .Values.server.diagnosticPort | quote }}
    {{- end }}
    - -c
    - /config/config.yaml
    {{- range $key, $file := .Values.setFileFromSecret }}
    - {{ printf "--set-file=%s=/secrets/%s" $key $file | quote }}
    {{- end }}
    - {{ printf "--authentication=%s" .Values.server.authentication | quote }}
    - {{ printf "--authorization=%s" .Values.server.authorization | quote }}
    {{- if .Values.server.tls.enabled }}
    - --tls-cert-file=/tls/tls.crt
    - --tls-private-key-file=/tls/tls.key
    {{- if .Values.server.tls.clientCA }}
    - --tls-ca-cert-file=/tls/ca.crt
    {{- end }}
    {{- end }}
    - {{ printf "--log-level=%s" (.Values.server.logLevel | default "info") | quote }}
    - {{ printf "--log-format=%s" (.Values.server.logFormat | default "json") | quote }}
    - {{ printf "--shutdown-grace-period=%v" .Values.server.shutdownGracePeriod | quote }}
    {{- if .Values.extraArgs }}
    {{- toYaml .Values.extraArgs | nindent 4 }}
    {{- end }}
  ports:
    {{- if ne .Host "127.0.0.1" }}
    - name: http
      containerPort: {{ .Values.server.port }}
      protocol: TCP
    {{- end }}
    {{- if .Values.server.diagnosticPort }}
    - name: diagnostic
      containerPort: {{ .Values.server.diagnosticPort }}
      protocol: TCP
    {{- end }}
  readinessProbe:
    httpGet:
      path: {{ .Values.probes.readiness.path | quote }}
      {{- include "regolith.probePort" . | nindent 6 }}
    initialDelaySeconds: {{ .Values.probes.readiness.initialDelaySeconds | default 0 }}
    periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
    timeoutSeconds: {{ .Values.probes.readiness.timeoutSeconds }}
    failureThreshold: {{ .Values.probes.readiness.failureThreshold }}
  livenessProbe:
    httpGet:
      path: {{ .Values.probes.liveness.path | quote }}
      {{- include "regolith.probePort" . | nindent 6 }}
    initialDelaySeconds: {{ .Values.probes.liveness.initialDelaySeconds | default 0 }}
    periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
    timeoutSeconds: {{ .Values.probes.liveness.timeoutSeconds }}
    failureThreshold: {{ .Values.probes.liveness.failureThreshold }}
  resources:
    {{- toYaml .Values.resources | nindent 4 }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: regolith-config
      mountPath: /config
      readOnly: true
    {{- if or .Values.existingSecret .Values.secrets }}
    - name: regolith-secrets
      mountPath: /secrets
      readOnly: true
    {{- end }}
    {{- if .Values.server.tls.enabled }}
    - name: regolith-tls
      mountPath: /tls
      readOnly: true
    {{- end }}
    - name: regolith-data
      mountPath: /var/lib/regolith
    - name: regolith-tmp
      mountPath: /tmp
{{- end }}

{{/* The probes' port: the diagnostic listener when there is one, else the API port. */}}
{{- define "regolith.probePort" -}}
{{- if .Values.server.diagnosticPort -}}
port: diagnostic
{{- else -}}
port: {{ .Values.server.port }}
{{- if .Values.server.tls.enabled }}
scheme: HTTPS
{{- end }}
{{- end }}
{{- end }}

{{/* The pod volumes the Regolith container mounts. */}}
{{- define "regolith.volumes" -}}
- name: regolith-config
  configMap:
    name: {{ include "regolith.fullname" . }}-config
{{- if or .Values.existingSecret .Values.secrets }}
- name: regolith-secrets
  secret:
    secretName: {{ include "regolith.secretName" . }}
    defaultMode: 288
{{- end }}
{{- if .Values.server.tls.enabled }}
- name: regolith-tls
  secret:
    secretName: {{ required "server.tls.secretName is required when server.tls.enabled" .Values.server.tls.secretName }}
    defaultMode: 288
{{- end }}
- name: regolith-data
  emptyDir: {}
- name: regolith-tmp
  emptyDir: {}
{{- end }}

{{/*
For your own pods (mode: sidecar): the Regolith container, listening on 127.0.0.1 only, and
the volumes it mounts. From a chart that has this one as a dependency named "regolith":

  containers:
    - name: app
      ...
    {{- include "regolith.sidecarContainer" (dict "Values" .Values.regolith "Release" .Release "Chart" (dict "Name" "regolith" "AppVersion" "0.1.0")) | nindent 4 }}
  volumes:
    {{- include "regolith.sidecarVolumes" (dict "Values" .Values.regolith "Release" .Release "Chart" (dict "Name" "regolith" "AppVersion" "0.1.0")) | nindent 4 }}

The pod also needs the podSecurityContext's fsGroup (the Secret's files are 0440).
*/}}
{{- define "regolith.sidecarContainer" -}}
{{- include "regolith.container" (dict "Values" .Values "Release" .Release "Chart" .Chart "Host" "127.0.0.1" "Name" "regolith") }}
{{- end }}

{{- define "regolith.sidecarVolumes" -}}
{{- include "regolith.volumes" . }}
{{- end }}
