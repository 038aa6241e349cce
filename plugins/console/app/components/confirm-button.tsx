// A destructive action asks twice: the first press arms it, the second (within a few seconds) does it.

import { type ReactNode, useEffect, useState } from 'react'

export function ConfirmButton({
  children,
  confirmLabel,
  onConfirm,
  disabled,
}: {
  children: ReactNode
  confirmLabel: string
  onConfirm: () => void
  disabled?: boolean
}) {
  const [armed, setArmed] = useState(false)
  useEffect(() => {
    if (!armed) return
    const timer = setTimeout(() => setArmed(false), 5000)
    return () => clearTimeout(timer)
  }, [armed])
  return (
    <button
      type="button"
      className={`button ${armed ? 'danger' : 'secondary'}`}
      disabled={disabled}
      onClick={() => {
        if (armed) {
          setArmed(false)
          onConfirm()
        } else setArmed(true)
      }}
    >
      {armed ? confirmLabel : children}
    </button>
  )
}
