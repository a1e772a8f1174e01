#!/usr/bin/env python3
"""Lists every value path of NVIDIA's gpu-operator chart with its type and default, as the table
cli/src/test/resources/chart/original-value-paths.tsv that ChartOriginalValuesTest reads.

Facts only (path, type, default), derived from the original's values.yaml and the `.Values.*`
paths its templates read (those without a default in values.yaml, e.g. driver.livenessProbe, get
the example value written in TEMPLATE_ONLY below, marked "example"). Run against a checkout of the original at the tag:

  git -C <mirror> show v26.7.0:deployments/gpu-operator/values.yaml > /tmp/values.yaml
  for f in $(git -C <mirror> ls-tree --name-only v26.7.0 deployments/gpu-operator/templates/); do
    git -C <mirror> show v26.7.0:$f; done > /tmp/templates.txt
  scripts/original-chart-values.py /tmp/values.yaml /tmp/templates.txt > \
    cli/src/test/resources/chart/original-value-paths.tsv
"""
import json
import re
import sys

import yaml

# Paths the original's templates read that its values.yaml leaves out or only names in comments,
# with an example of the value they take (from the templates, their comments and the CRD).
TEMPLATE_ONLY = {
    "hostPaths.kubeletRootDir": "/var/lib/kubelet",
    "operator.defaultGPUMode": "container",
    "operator.version": "v26.7.0",
    "operator.labels": {"team":"gpu"},
    "operator.metrics.serviceMonitor": {"interval":"15s","honorLabels":False,"additionalLabels":{},"relabelings":[]},
    "validator.version": "v26.7.0",
    "validator.cuda.env": [{"name":"EXAMPLE","value":"1"}],
    "validator.driver.env": [{"name":"EXAMPLE","value":"1"}],
    "validator.toolkit.env": [{"name":"EXAMPLE","value":"1"}],
    "validator.vfioPCI.env": [{"name":"EXAMPLE","value":"1"}],
    "validator.vgpuManager.env": [{"name":"EXAMPLE","value":"1"}],
    "validator.vgpuDevices.env": [{"name":"EXAMPLE","value":"1"}],
    "driver.args": ["--example"],
    "driver.livenessProbe": {"initialDelaySeconds":60,"periodSeconds":10},
    "driver.readinessProbe": {"initialDelaySeconds":60,"periodSeconds":10},
    "driver.licensingConfig.configMapName": "licensing-config",
    "dcgmExporter.args": ["--example"],
    "dcgmExporter.imagePullSecrets": ["example-secret"],
    "dcgmExporter.hpcJobMapping.enabled": True,
    "dcgmExporter.hpcJobMapping.directory": "/var/lib/dcgm-exporter/job-mapping",
    "dcgmExporter.podLabelAllowlistRegex": ["^app$"],
    "dcgmExporter.config.name": "custom-dcgm-exporter-metrics",
    "dcgmExporter.config.create": False,
    "dcgmExporter.config.data": "DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).\n",
    "dcgm.imagePullSecrets": ["example-secret"],
    "gfd.args": ["--example"],
    "migManager.args": ["--example"],
    "nodeStatusExporter.args": ["--example"],
    "nodeStatusExporter.env": [{"name":"EXAMPLE","value":"1"}],
    "nodeStatusExporter.version": "v26.7.0",
    "vgpuManager.args": ["--example"],
    "vgpuDeviceManager.args": ["--example"],
    "vgpuDeviceManager.resources": {},
    "vfioManager.args": ["--example"],
    "kataManager.args": ["--example"],
    "kataManager.repository": "nvcr.io/nvidia/cloud-native",
    "kataManager.image": "k8s-kata-manager",
    "kataManager.version": "v0.2.3",
    "ccManager.args": ["--example"],
    "ccManager.env": [{"name":"EXAMPLE","value":"1"}],
    "draDriver.gpus.kubeletPlugin.env": [{"name":"EXAMPLE","value":"1"}],
    "draDriver.gpus.kubeletPlugin.resources": {},
    "draDriver.gpus.kubeletPlugin.healthcheck": {"enabled":True,"port":51516},
    "draDriver.computeDomains.controller.env": [{"name":"EXAMPLE","value":"1"}],
    "draDriver.computeDomains.controller.resources": {},
    "draDriver.computeDomains.kubeletPlugin.env": [{"name":"EXAMPLE","value":"1"}],
    "draDriver.computeDomains.kubeletPlugin.resources": {},
    "nameOverride": "gpu-operator",
    "fullnameOverride": "gpu-operator",
}


def kind(v):
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


def leaves(node, prefix):
    """Scalars, lists, empty maps and maps keyed by label-like names (annotations, node selectors:
    keys with dots or slashes) are leaves; the NFD subchart's values are one leaf each."""
    for k, v in node.items():
        path = prefix + k
        nested = isinstance(v, dict) and v and not any("." in x or "/" in x for x in v)
        if nested and not path.startswith("node-feature-discovery."):
            yield from leaves(v, path + ".")
        else:
            yield path, v


def main():
    values = yaml.safe_load(open(sys.argv[1]))
    templates = open(sys.argv[2]).read()
    rows = {}
    for path, v in leaves(values, ""):
        rows[path] = (kind(v), json.dumps(v, separators=(",", ":")), "values.yaml")
    read = set(re.findall(r"\.Values\.([A-Za-z0-9_.-]+)", templates))
    for path, v in TEMPLATE_ONLY.items():
        if path in rows:
            continue
        named = any(path.startswith(r) or r.startswith(path) for r in read)
        rows[path] = (kind(v), json.dumps(v, separators=(",", ":")),
                      "template example" if named else "comment example")
    print("# Value paths of NVIDIA's gpu-operator chart v26.7.0 (deployments/gpu-operator):")
    print("# path, type, default (JSON; for paths without one, an example), where the original")
    print("# names it. Generated by scripts/original-chart-values.py from its values.yaml and templates.")
    for path in sorted(rows):
        print("\t".join((path,) + rows[path]))


main()
