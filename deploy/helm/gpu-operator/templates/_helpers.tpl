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

{{/*
A ClusterPolicy section without the original chart's keys that are not ClusterPolicy fields:
config.create/.data (the chart's ConfigMaps), driver.nvidiaDriverCRD (spec.driver.useNvidiaDriverCRD
and the default NVIDIADriver), driver.upgradePolicy.gpuPodDeletion (spec's podDeletion), and the
draDriver keys only a GPUCluster has. Args: (dict "key" section-name "v" section-values).
*/}}
{{- define "gpu-operator.policyValues" -}}
{{- $v := deepCopy .v -}}
{{- if and (has .key (list "devicePlugin" "migManager" "dcgmExporter")) (kindIs "map" $v.config) -}}
{{- $_ := set $v "config" (omit $v.config "create" "data") -}}
{{- end -}}
{{- if eq .key "driver" -}}
{{- $crd := default dict $v.nvidiaDriverCRD -}}
{{- $v = omit $v "nvidiaDriverCRD" -}}
{{- if hasKey $crd "enabled" -}}
{{- $_ := set $v "useNvidiaDriverCRD" $crd.enabled -}}
{{- end -}}
{{- if and (kindIs "map" $v.upgradePolicy) (hasKey $v.upgradePolicy "gpuPodDeletion") -}}
{{- $up := omit $v.upgradePolicy "gpuPodDeletion" -}}
{{- if not (hasKey $up "podDeletion") -}}
{{- $_ := set $up "podDeletion" $v.upgradePolicy.gpuPodDeletion -}}
{{- end -}}
{{- $_ := set $v "upgradePolicy" $up -}}
{{- end -}}
{{- end -}}
{{- if eq .key "draDriver" -}}
{{- $v = omit $v "featureGates" "gpus" "computeDomains" -}}
{{- end -}}
{{- toYaml $v -}}
{{- end -}}

{{/* "true" when the NodeFeatureRule is rendered: asked for, and NFD's CRD will be there. */}}
{{- define "gpu-operator.nodeFeatureRules" -}}
{{- if and .Values.nfd.nodefeaturerules (or .Values.nfd.enabled (.Capabilities.APIVersions.Has "nfd.k8s-sigs.io/v1alpha1/NodeFeatureRule")) -}}
true
{{- end -}}
{{- end -}}

{{/*
The values of the original chart this chart accepts but does not act on, set to something that
would make the original act: one "path: what happens here instead" line each. NOTES.txt prints
them and the ClusterPolicy carries them (annotation gpu-operator.nvidia.com/unsupported-values),
which the operator reports in its IgnoredFields condition.
*/}}
{{- define "gpu-operator.unsupportedValues" -}}
{{- $v := .Values -}}
{{- $out := list -}}
{{- if and (dig "nodefeaturerules" false $v.nfd) (not (include "gpu-operator.nodeFeatureRules" .)) -}}
{{- $out = append $out "nfd.nodefeaturerules: the NodeFeatureRule nvidia-kernel-modules is not rendered: no NFD (nfd.enabled is false and the cluster has no nfd.k8s-sigs.io/v1alpha1 NodeFeatureRule kind)" -}}
{{- end -}}
{{- if $v.operator.cleanupCRD -}}
{{- $out = append $out "operator.cleanupCRD: the CRDs stay after helm uninstall (Helm never deletes a chart's crds/); delete them with kubectl" -}}
{{- end -}}
{{- if and (hasKey $v.operator "upgradeCRD") (not $v.operator.upgradeCRD) -}}
{{- $out = append $out "operator.upgradeCRD: the operator upgrades its CRDs itself at start, always" -}}
{{- end -}}
{{- with $v.operator.defaultGPUMode -}}
{{- $out = append $out "operator.defaultGPUMode: not supported (no GPU mode switching)" -}}
{{- end -}}
{{- range $key := list "nameOverride" "fullnameOverride" -}}
{{- if index $v $key -}}
{{- $out = append $out (printf "%s: the objects' names are fixed (the operator finds them by name)" $key) -}}
{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}
