"""openmm_peer - what the peer benchmarks scripts/bench-md-peers/openmm_lj.py
and scripts/bench-mm-peers/openmm_mm.py share: OpenMM imported and its
platform chosen (open_platform), after the CUDA libraries OpenMM's CUDA
plugin needs (libnvrtc.so.13, libcufft.so.12) are loaded from the nvidia-*
wheels (see scripts/bench-md-peers/README).

The openmm-cuda-13 plugin (OpenMM.libs/lib/plugins/libOpenMMCUDA.so) finds
them through its RUNPATH $ORIGIN/../../../nvidia/cu13/lib, i.e. only when
the nvidia wheels sit in the same site directory as OpenMM.  When openmm
was installed elsewhere (pip --target), loading them by full path first
lets the dynamic loader satisfy the plugin's NEEDED entries by soname.
Harmless when they are found anyway.
"""
import ctypes
import importlib.util
import os


def preload_cuda_libraries(skip_env):
    """Load the libraries; nothing when the environment variable skip_env
    is set.  Returns the paths loaded."""
    if os.environ.get(skip_env):
        return []
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    bases = list(spec.submodule_search_locations)
    wanted = (("libnvrtc.so.13", ("cu13/lib", "cuda_nvrtc/lib")),
              ("libcufft.so.12", ("cu13/lib", "cufft/lib")))
    loaded = []
    for soname, subdirs in wanted:
        done = False
        for base in bases:
            for sub in subdirs:
                path = os.path.join(base, sub, soname)
                if not os.path.exists(path):
                    continue
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    continue
                loaded.append(path)
                done = True
                break
            if done:
                break
    return loaded


def open_platform(name, precision, device_index, skip_env, die):
    """Import OpenMM and pick the platform name (preloading the CUDA
    libraries first for CUDA).  die(code, message) is called, with 69,
    when openmm cannot be imported or the platform is missing (with
    OpenMM's plugin load failures).  Returns (mm, platform, properties,
    precision as reported, the paths preloaded)."""
    preloaded = preload_cuda_libraries(skip_env) if name == "CUDA" else []
    try:
        import openmm as mm
    except ImportError as e:
        die(69, f"cannot import openmm ({e})")
    names = [mm.Platform.getPlatform(i).getName()
             for i in range(mm.Platform.getNumPlatforms())]
    if name not in names:
        fails = [s.replace("\n", " ")
                 for s in mm.Platform.getPluginLoadFailures()]
        hint = ("; plugin load failures: " + " | ".join(fails)) if fails else ""
        die(69, f"OpenMM platform {name} not available "
            f"(have {', '.join(names)}){hint}")
    platform = mm.Platform.getPlatformByName(name)
    props = {}
    reported = "native"
    if name in ("CUDA", "OpenCL", "HIP"):
        props["Precision"] = precision
        reported = precision
        if device_index is not None:
            props["DeviceIndex"] = str(device_index)
    elif name == "Reference":
        reported = "double"
    return mm, platform, props, reported, preloaded
