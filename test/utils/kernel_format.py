"""lit test format for the kernel suite (test/kernels): see lit.local.cfg there."""
import os
import subprocess

import lit.formats
import lit.Test
import lit.TestRunner


class KernelSuite(lit.formats.FileBasedTest):
    def execute(self, test, lit_config):
        src = test.getSourcePath()
        tmp_dir, tmp = lit.TestRunner.getTempPaths(test)
        os.makedirs(os.path.dirname(tmp), exist_ok=True)
        env = dict(os.environ, PATH=test.config.environment["PATH"])
        ptxas = next((v for k, v in test.config.substitutions if k == "%ptxas"), None)
        cmds = []
        for form, flags in [("fixed", []), ("vla", ["-DTESSEL_USE_VLA"])]:
            for sm in ["sm_80", "sm_90"]:
                ptx = f"{tmp}.{form}.{sm}.ptx"
                cmds.append(["tesselc", src, *flags, f"--offload-arch={sm}", "--emit=ptx", "-o", ptx])
                if ptxas:
                    cmds.append([ptxas, f"-arch={sm}", ptx, "-o", f"{tmp}.{form}.{sm}.cubin"])
            asm = f"{tmp}.{form}.s"
            cmds.append(["tesselc", src, *flags, "--emit=amdgcn", "-o", asm])
            cmds.append(["llvm-mc", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", asm,
                         "-o", f"{tmp}.{form}.o"])
        log = []
        for c in cmds:
            p = subprocess.run(c, capture_output=True, text=True, env=env)
            log.append("$ " + " ".join(c) + "\n" + p.stdout + p.stderr)
            if p.returncode != 0:
                return lit.Test.FAIL, "\n".join(log)
        return lit.Test.PASS, ""
