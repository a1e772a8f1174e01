{{/* The ClusterPolicy sections the chart passes through from values (the original's keys). */}}
{{- define "gpu-operator.policySections" -}}
{{- list "psa" "cdi" "sandboxWorkloads" "hostPaths" "daemonsets" "validator" "mig" "driver" "toolkit" "devicePlugin" "draDriver" "dcgm" "dcgmExporter" "gfd" "migManager" "nodeStatusExporter" "gds" "gdrcopy" "vgpuManager" "vgpuDeviceManager" "vfioManager" "kataManager" "sandboxDevicePlugin" "kataSandboxDevicePlugin" "ccManager" "nodeTaint" | toJson -}}
{{- end -}}

{{- define "gpu-operator.name" -}}gpu-operator{{- end -}}

{{- define "gpu-operator.labels" -}}
app.kubernetes.io/name: gpu-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "gpu-operator.selectorLabels" -}}
app.kubernetes.io/name: gpu-operator
app.kubernetes.io/component: operator
{{- end -}}

{{/*
A repository moved to global.imageRegistry: the first path element is replaced when it names a
registry host (has a dot or a port, or is localhost), else the registry is put in front.
Args: (list repository registry).
*/}}
{{- define "gpu-operator.rehost" -}}
{{- $repo := index . 0 -}}{{- $registry := trimSuffix "/" (index . 1) -}}
{{- if not $registry -}}{{ $repo }}{{- else -}}
{{- $parts := splitList "/" $repo -}}
{{- $first := first $parts -}}
{{- if and (gt (len $parts) 1) (or (contains "." $first) (contains ":" $first) (eq $first "localhost")) -}}
{{ $registry }}/{{ rest $parts | join "/" }}
{{- else -}}
{{ $registry }}/{{ $repo }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
A values section as the ClusterPolicy gets it: at every depth, a map naming an image (repository
and image) gets the registry of global.imageRegistry and, without a version, the chart's
appVersion (this project's image); a top-level section naming an image also gets
global.imagePullSecrets. Args: (dict "v" section "root" $ "top" bool).
*/}}
{{- define "gpu-operator.section" -}}
{{- $root := .root -}}
{{- $out := dict -}}
{{- range $k, $v := .v -}}
{{- if kindIs "map" $v -}}
{{- $_ := set $out $k (include "gpu-operator.section" (dict "v" $v "root" $root "top" false) | fromYaml) -}}
{{- else -}}
{{- $_ := set $out $k $v -}}
{{- end -}}
{{- end -}}
{{- if and (hasKey $out "repository") (hasKey $out "image") $out.image -}}
{{- if $out.repository -}}
{{- $_ := set $out "repository" (include "gpu-operator.rehost" (list $out.repository $root.Values.global.imageRegistry)) -}}
{{- end -}}
{{- if not $out.version -}}
{{- $_ := set $out "version" $root.Chart.AppVersion -}}
{{- end -}}
{{- if and .top $root.Values.global.imagePullSecrets -}}
{{- $_ := set $out "imagePullSecrets" (concat (default list $out.imagePullSecrets) $root.Values.global.imagePullSecrets | uniq) -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The operator's image: repository/image:version, or @sha256:... for a digest. */}}
{{- define "gpu-operator.operatorImage" -}}
{{- $o := .Values.operator -}}
{{- $repo := include "gpu-operator.rehost" (list $o.repository .Values.global.imageRegistry) -}}
{{- $version := default .Chart.AppVersion $o.version -}}
{{- if hasPrefix "sha256:" $version -}}
{{ $repo }}/{{ $o.image }}@{{ $version }}
{{- else -}}
{{ $repo }}/{{ $o.image }}:{{ $version }}
{{- end -}}
{{- end -}}
