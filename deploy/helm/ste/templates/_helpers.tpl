{{/*
Guards, included by every workload: what would run insecurely does not
render unless a value says so on purpose.
*/}}
{{- define "ste.guards" -}}
{{- if and (not .Values.utilityKey.secretName) (not .Values.demo) -}}
{{- fail "utilityKey.secretName is empty: the pods would sign every output with the public demo key. Name the secret of the utility's Ed25519 key, or set demo=true for a demonstration" -}}
{{- end -}}
{{- if and (not .Values.utilitySecret.secretName) (not .Values.demo) -}}
{{- fail "utilitySecret.secretName is empty: every pod would make a shared secret of its own and none would believe another's control records. Name a secret of 32 random bytes, or set demo=true for a demonstration" -}}
{{- end -}}
{{- if and (not .Values.kafka.tls.enabled) (not .Values.kafka.insecure) -}}
{{- fail "kafka.tls.enabled is false: credentials and trades would cross the network in the clear. Set kafka.insecure=true to accept that" -}}
{{- end -}}
{{- if and (not .Values.kafka.sasl.mechanism) (not .Values.kafka.tls.clientSecret.name) (not .Values.kafka.insecure) -}}
{{- fail "kafka.sasl.mechanism is empty and no TLS client certificate is set: STE would connect without authenticating, as anyone may. Set kafka.insecure=true to accept that" -}}
{{- end -}}
{{- end -}}

{{/* Names and labels. */}}
{{- define "ste.fullname" -}}
{{- if contains "ste" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-ste" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ste.labels" -}}
app.kubernetes.io/name: ste
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ste.selector" -}}
app.kubernetes.io/name: ste
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ste.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/*
The environment of every ste container: the connection (brokers, TLS, SASL
with the password as a mounted file), namespace, HTTP address, log, home,
and the pod name as the instance id (stable for the StatefulSet).
*/}}
{{- define "ste.env" -}}
- name: STE_INSTANCE_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: STE_NAMESPACE
  value: {{ .Values.namespace | quote }}
- name: STE_BROKERS
  value: {{ .Values.kafka.brokers | quote }}
{{- if .Values.kafka.tls.enabled }}
- name: STE_KAFKA_TLS
  value: "true"
{{- if .Values.kafka.tls.caSecret.name }}
- name: STE_KAFKA_TLS_CA
  value: /etc/ste/kafka-ca/{{ .Values.kafka.tls.caSecret.key }}
{{- end }}
{{- if .Values.kafka.tls.clientSecret.name }}
- name: STE_KAFKA_TLS_CERT
  value: /etc/ste/kafka-client/{{ .Values.kafka.tls.clientSecret.certKey }}
- name: STE_KAFKA_TLS_KEY
  value: /etc/ste/kafka-client/{{ .Values.kafka.tls.clientSecret.keyKey }}
{{- end }}
{{- if .Values.kafka.tls.serverName }}
- name: STE_KAFKA_TLS_SERVER_NAME
  value: {{ .Values.kafka.tls.serverName | quote }}
{{- end }}
{{- end }}
{{- if .Values.kafka.sasl.mechanism }}
- name: STE_KAFKA_SASL_MECHANISM
  value: {{ .Values.kafka.sasl.mechanism | quote }}
- name: STE_KAFKA_SASL_USERNAME
  value: {{ .Values.kafka.sasl.username | quote }}
- name: STE_KAFKA_SASL_PASSWORD_FILE
  value: /etc/ste/kafka-password/{{ .Values.kafka.sasl.passwordSecret.key }}
{{- end }}
- name: STE_HTTP
  value: "0.0.0.0:{{ .Values.http.port }}"
- name: STE_LOG_FORMAT
  value: {{ .Values.log.format | quote }}
- name: STE_LOG_LEVEL
  value: {{ .Values.log.level | quote }}
- name: STE_HOME
  value: /var/lib/ste
{{- if .Values.utilitySecret.secretName }}
- name: STE_UTILITY_SECRET
  value: /etc/ste/utility-secret/{{ .Values.utilitySecret.key }}
{{- end }}
{{- end -}}

{{/* $STE_HOME in a pod of its own: an emptyDir (the StatefulSet's may be a claim instead). */}}
{{- define "ste.homeVolume" -}}
- name: home
  emptyDir: {}
{{- end -}}

{{/* Secret volumes: Kafka CA, client certificate, SASL password, utility key. */}}
{{- define "ste.volumes" -}}
- name: tmp
  emptyDir: {}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.caSecret.name }}
- name: kafka-ca
  secret:
    secretName: {{ .Values.kafka.tls.caSecret.name }}
    items: [{key: {{ .Values.kafka.tls.caSecret.key }}, path: {{ .Values.kafka.tls.caSecret.key }}}]
{{- end }}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.clientSecret.name }}
- name: kafka-client
  secret:
    secretName: {{ .Values.kafka.tls.clientSecret.name }}
    defaultMode: 0400
{{- end }}
{{- if .Values.kafka.sasl.mechanism }}
- name: kafka-password
  secret:
    secretName: {{ .Values.kafka.sasl.passwordSecret.name }}
    defaultMode: 0400
    items: [{key: {{ .Values.kafka.sasl.passwordSecret.key }}, path: {{ .Values.kafka.sasl.passwordSecret.key }}}]
{{- end }}
{{- if .Values.utilitySecret.secretName }}
- name: utility-secret
  secret:
    secretName: {{ .Values.utilitySecret.secretName }}
    defaultMode: 0400
    items: [{key: {{ .Values.utilitySecret.key }}, path: {{ .Values.utilitySecret.key }}}]
{{- end }}
{{- if .Values.utilityKey.secretName }}
- name: utility-key
  secret:
    secretName: {{ .Values.utilityKey.secretName }}
    defaultMode: 0400
    items: [{key: {{ .Values.utilityKey.key }}, path: {{ .Values.utilityKey.key }}}]
{{- end }}
{{- end -}}

{{- define "ste.volumeMounts" -}}
- {name: home, mountPath: /var/lib/ste}
- {name: tmp, mountPath: /tmp}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.caSecret.name }}
- {name: kafka-ca, mountPath: /etc/ste/kafka-ca, readOnly: true}
{{- end }}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.clientSecret.name }}
- {name: kafka-client, mountPath: /etc/ste/kafka-client, readOnly: true}
{{- end }}
{{- if .Values.kafka.sasl.mechanism }}
- {name: kafka-password, mountPath: /etc/ste/kafka-password, readOnly: true}
{{- end }}
{{- if .Values.utilityKey.secretName }}
- {name: utility-key, mountPath: /etc/ste/utility-key, readOnly: true}
{{- end }}
{{- if .Values.utilitySecret.secretName }}
- {name: utility-secret, mountPath: /etc/ste/utility-secret, readOnly: true}
{{- end }}
{{- end -}}

{{/* The arguments of ste process common to both groups. */}}
{{- define "ste.processArgs" -}}
- --retention={{ .Values.retention }}
- --utility-bic={{ .Values.utilityBIC }}
{{- if .Values.utilityKey.secretName }}
- --utility-key=/etc/ste/utility-key/{{ .Values.utilityKey.key }}
{{- end }}
{{- if .Values.topics.create }}
- --replication={{ .Values.topics.replication }}
- --min-insync={{ .Values.topics.minInsync }}
{{- else }}
- --no-create-topics
{{- end }}
{{- end -}}

{{/*
Probes on the fixed HTTP port: liveness /healthz (the runtime has not
failed), readiness /readyz (reference data read, tables recovered, groups
running), and a startup probe that gives the connection and topic checks
time before liveness counts.
*/}}
{{- define "ste.probes" -}}
ports:
  - name: http
    containerPort: {{ .Values.http.port }}
    protocol: TCP
startupProbe:
  httpGet: {path: /healthz, port: http}
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet: {path: /healthz, port: http}
  periodSeconds: 10
  failureThreshold: 3
readinessProbe:
  httpGet: {path: /readyz, port: http}
  periodSeconds: 5
  failureThreshold: 2
{{- end -}}
